# unolaunch launcher firmware: the Pico runs this file at power-up.
# Hold the launcher's button while plugging in for safe mode (REPL only, launcher idle).
from launcher.app import main

main()
