#!/usr/bin/env node
// Run the real MicroPython rp2 firmware in an emulated RP2040 (rp2040js 1.4.1) and talk to a
// parent process over JSON lines: commands on fd 3, events on fd 4 (binary data in base64).
//
//   node runner.js --rp2040js DIR --bootrom FILE --flash FILE [--uf2 FILE]
//
// Stock rp2040js falls short of a Pico in several ways (see /work/shared/rp2/README.md); this
// file covers them by subclassing/monkey-patching at run time, never by editing the package:
//   1. flash is writable: an SPI NOR model behind the SSI data register and the QSPI CS override
//   2./3. the USB host queues input without limit and holds OUT arms until it has data (no spin)
//   3. emulated time is paced to wall time; WFI/WFE jumps to the next alarm
//   4. GPIO inputs read the world's level or their pull level
//   5. UART TX interrupt raised per transmitted byte, cleared by ICR (no interrupt storm)
//   6. watchdog/machine.reset() rebuild a fresh chip (REASON + SCRATCH kept)
//   8. "stall": IN transfers of the CDC data endpoint are held until "unstall"
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const util = require('util');

// Nothing but protocol lines may reach fd 4; rp2040js also prints with console.* directly.
for (const k of ['log', 'info', 'debug', 'warn', 'error']) {
  console[k] = (...a) => process.stderr.write(util.format(...a) + '\n');
}
const VERBOSE = !!process.env.UNOLAUNCH_RP2_VERBOSE;
function diag(msg) {
  process.stderr.write(`[runner] ${msg}\n`);
}
function fatal(msg) {
  diag(`fatal: ${msg}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// Command line and rp2040js modules
function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--(rp2040js|bootrom|flash|uf2|in-fd|out-fd)$/.exec(argv[i]);
    if (!m || i + 1 >= argv.length) fatal(`bad argument ${argv[i]}`);
    out[m[1]] = argv[++i];
  }
  for (const k of ['rp2040js', 'bootrom', 'flash']) if (!out[k]) fatal(`--${k} is required`);
  return out;
}
const ARGS = parseArgs(process.argv.slice(2));
const lib = (p) => require(path.join(path.resolve(ARGS.rp2040js), 'dist', 'cjs', p));
const { RP2040 } = lib('rp2040.js');
const { SimulationClock } = lib('clock/simulation-clock.js');
const { USBCDC } = lib('usb/cdc.js');
const { BasePeripheral } = lib('peripherals/peripheral.js');

// ---------------------------------------------------------------------------------------------
// Constants
const FLASH_SIZE = 2 * 1024 * 1024; // W25Q16 on a Pico
const PACE_AHEAD_NS = 5e6; // emulated time may run at most 5 ms ahead of wall time
const LAG_FORGIVE_NS = 100e6; // a lag beyond 100 ms is forgiven (re-anchor), not caught up
const BATCH_INSTR = 60000; // instructions per batch: bounds the latency of fd-3 commands
const USB_BUF_AVAILABLE = 1 << 10;
const WD_REASON_FORCE = 1 << 1;
const UART_TXINTR = 1 << 5;

// ---------------------------------------------------------------------------------------------
// Protocol output. Every event goes through emit(), which first flushes buffered USB/UART
// output so that the order of events on fd 4 is the order things happened in the chip.
const OUT_FD = ARGS['out-fd'] !== undefined ? Number(ARGS['out-fd']) : 4;
function writeLine(obj) {
  const buf = Buffer.from(JSON.stringify(obj) + '\n');
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(OUT_FD, buf, off, buf.length - off);
    } catch (e) {
      if (e.code === 'EAGAIN') continue; // parent is slow to read: just retry
      if (e.code === 'EPIPE') process.exit(0); // parent is gone
      throw e;
    }
  }
}
let usbOut = []; // device -> host bytes not yet reported (Buffers)
let usbOutHeld = []; // bytes completed while the host is "stalled": reported at unstall
const uartOut = [[], []];
function flushOutput() {
  if (usbOut.length) {
    const data = Buffer.concat(usbOut);
    usbOut = [];
    writeLine({ ev: 'usb', data: data.toString('base64') });
  }
  for (let id = 0; id < 2; id++) {
    if (uartOut[id].length) {
      writeLine({ ev: 'uart', id, data: Buffer.from(uartOut[id]).toString('base64') });
      uartOut[id] = [];
    }
  }
}
function emit(obj) {
  flushOutput();
  writeLine(obj);
}

// ---------------------------------------------------------------------------------------------
// Flash: the image file is the truth. Every erase/program is written straight to the file
// (pwrite) so a SIGKILL loses nothing; each new chip copies the image into its XIP array.
const flashImage = Buffer.alloc(FLASH_SIZE, 0xff);
let flashFd;
function openFlash() {
  try {
    flashFd = fs.openSync(ARGS.flash, 'r+');
  } catch (e) {
    fatal(`cannot open flash file: ${e.message}`);
  }
  const size = fs.fstatSync(flashFd).size;
  if (size > FLASH_SIZE) fatal(`flash file is ${size} bytes, more than ${FLASH_SIZE}`);
  fs.readSync(flashFd, flashImage, 0, size, 0);
  if (size < FLASH_SIZE) {
    diag(`flash file is ${size} bytes; padding to ${FLASH_SIZE} with 0xff`);
    persistFlash(size, FLASH_SIZE - size);
  }
}
function persistFlash(offset, length) {
  fs.writeSync(flashFd, flashImage, offset, length, offset);
}
function loadUF2(file) {
  const data = fs.readFileSync(file);
  let blocks = 0;
  for (let off = 0; off + 512 <= data.length; off += 512) {
    if (data.readUInt32LE(off) !== 0x0a324655 || data.readUInt32LE(off + 4) !== 0x9e5d5157) continue;
    const flags = data.readUInt32LE(off + 8);
    if (flags & 1) continue; // "not main flash"
    if (flags & 0x2000 && data.readUInt32LE(off + 28) !== 0xe48bff56) continue; // other family
    const addr = data.readUInt32LE(off + 12) - 0x10000000;
    const size = data.readUInt32LE(off + 16);
    if (addr < 0 || addr + size > FLASH_SIZE || size > 476) continue;
    data.copy(flashImage, addr, off + 32, off + 32 + size);
    persistFlash(addr, size);
    blocks++;
  }
  diag(`uf2: ${blocks} blocks written to flash`);
}

// Serial NOR flash (Winbond W25Q16-like) as seen through the SSI in plain SPI mode. A
// transaction runs from chip-select low to chip-select high; erase/program take effect at
// CS high, as on the real part. Busy (WIP) is never reported: operations are instantaneous.
class SpiNorFlash {
  constructor(mcu) {
    this.mcu = mcu; // the chip whose XIP array mirrors the image
    this.active = false;
    this.wel = false; // write enable latch
    this.sr2 = 0x02; // QE set: boot2 then skips rewriting the status register
    this.unknownSeen = new Set();
  }
  select() {
    this.active = true;
    this.cmd = -1;
    this.n = 0; // bytes after the command byte
    this.addr = 0;
    this.page = null;
  }
  deselect() {
    if (!this.active) return;
    this.active = false;
    const { cmd } = this;
    const erase = { 0x20: 4096, 0x52: 32768, 0xd8: 65536, 0xc7: FLASH_SIZE, 0x60: FLASH_SIZE }[cmd];
    if (erase && (cmd === 0xc7 || cmd === 0x60 || this.n >= 3)) {
      if (this.wel) {
        const start = (cmd === 0xc7 || cmd === 0x60 ? 0 : this.addr) & ~(erase - 1) & (FLASH_SIZE - 1);
        this.write(start, erase, null);
      } else diag(`flash: erase 0x${cmd.toString(16)} without write enable ignored`);
      this.wel = false;
    } else if (cmd === 0x02 && this.page) {
      if (this.wel) {
        const base = this.addr & ~0xff & (FLASH_SIZE - 1);
        this.write(base, 256, this.page);
      } else diag('flash: page program without write enable ignored');
      this.wel = false;
    } else if (cmd === 0x01 || cmd === 0x31) {
      this.wel = false;
    }
  }
  // NOR semantics: erase sets bytes to 0xff, program can only clear bits.
  write(start, length, latch) {
    const xip = this.mcu ? this.mcu.flash : null;
    for (let i = 0; i < length; i++) {
      const v = latch ? flashImage[start + i] & latch[i] : 0xff;
      flashImage[start + i] = v;
      if (xip) xip[start + i] = v;
    }
    persistFlash(start, length);
  }
  // One byte clocked out by the controller; returns the byte clocked in.
  transfer(b) {
    if (!this.active) this.select();
    if (this.cmd < 0) {
      this.cmd = b;
      if (b === 0x06) this.wel = true;
      else if (b === 0x04) this.wel = false;
      return 0xff;
    }
    const n = this.n++;
    const addrByte = () => {
      this.addr = ((this.addr << 8) | b) & 0xffffff;
    };
    switch (this.cmd) {
      case 0x05: // read status 1
        return this.wel ? 0x02 : 0x00;
      case 0x35: // read status 2
        return this.sr2;
      case 0x15: // read status 3
        return 0x00;
      case 0x01: // write status 1 (and 2)
        if (n === 1 && this.wel) this.sr2 = b | 0x02;
        return 0xff;
      case 0x31: // write status 2
        return 0xff;
      case 0x20:
      case 0x52:
      case 0xd8:
        if (n < 3) addrByte();
        return 0xff;
      case 0x02: // page program: data wraps within the 256-byte page latch
        if (n < 3) addrByte();
        else {
          if (!this.page) this.page = new Uint8Array(256).fill(0xff);
          this.page[(this.addr + n - 3) & 0xff] = b;
        }
        return 0xff;
      case 0x03: // read
      case 0x0b: {
        // fast read: one dummy byte
        const skip = this.cmd === 0x0b ? 4 : 3;
        if (n < 3) {
          addrByte();
          return 0xff;
        }
        if (n < skip) return 0xff;
        return flashImage[(this.addr + n - skip) & (FLASH_SIZE - 1)];
      }
      case 0x9f: // JEDEC id: Winbond W25Q16
        return [0xef, 0x40, 0x15][n] ?? 0xff;
      case 0x4b: // unique id after 4 dummy bytes
        return n >= 4 && n < 12 ? [0xe6, 0x60, 0x58, 0x38, 0x83, 0x2f, 0x1c, 0x2a][n - 4] : 0xff;
      case 0xab: // release power-down; device id after 3 dummy bytes
        return n >= 3 ? 0x14 : 0xff;
      case 0x90: // manufacturer/device id after 3 address bytes
        return n >= 3 ? [0xef, 0x14][(n - 3) & 1] : 0xff;
      default:
        if (!this.unknownSeen.has(this.cmd) && ![0x00, 0xff, 0xeb].includes(this.cmd)) {
          this.unknownSeen.add(this.cmd);
          if (VERBOSE) diag(`flash: unmodelled command 0x${this.cmd.toString(16)}`);
        }
        return 0xff;
    }
  }
}

// A peripheral that just stores what is written (reads of unwritten words give `defaults`).
class RegisterFile extends BasePeripheral {
  constructor(mcu, name, defaults = {}) {
    super(mcu, name);
    this.regs = new Map(Object.entries(defaults).map(([k, v]) => [Number(k), v]));
  }
  readUint32(offset) {
    return this.regs.get(offset) ?? 0;
  }
  writeUint32(offset, value) {
    this.regs.set(offset, value >>> 0);
  }
}

// IO_QSPI: the boot ROM/SDK frame flash commands by forcing QSPI_SS low/high through
// GPIO_QSPI_SS_CTRL.OUTOVER. Everything else reads back what was written, and reads 0
// otherwise — in particular SD1_CTRL.INOVER, which the ROM polls as its "abort" flag.
class IOQSPI extends RegisterFile {
  constructor(mcu, name, ssi) {
    super(mcu, name);
    this.ssi = ssi;
  }
  writeUint32(offset, value) {
    super.writeUint32(offset, value);
    if (offset === 0x0c) this.ssi.setCsOverride((value >> 8) & 3);
  }
}

// SSI (the QSPI flash controller) in the mode the ROM's flash routines use it: every byte
// written to DR0 is clocked through the flash and the byte clocked back lands in the RX FIFO.
// XIP reads themselves do not go through here (rp2040js reads mcu.flash directly).
class FlashSSI extends RegisterFile {
  constructor(mcu, name, nor) {
    super(mcu, name, { 0x58: 0x51535049, 0x5c: 0x3430312a });
    this.nor = nor;
    this.rx = [];
    this.csOverride = 0; // 0 normal (SSI drives CS), 2 forced low, 3 forced high
  }
  setCsOverride(ov) {
    if (ov === this.csOverride) return;
    // Any change ends what was going on; forcing low starts a new transaction.
    this.nor.deselect();
    this.csOverride = ov;
    if (ov === 2) this.nor.select();
  }
  readUint32(offset) {
    switch (offset) {
      case 0x20: // TXFLR: bytes leave at once
        return 0;
      case 0x24: // RXFLR
        return this.rx.length;
      case 0x28: // SR: TFE | TFNF | RFNE? | RFF?
        // With the SSI driving CS itself (boot2), a status poll means "the frame has been
        // clocked out", after which the real SSI raises CS: end the transaction here.
        if (this.csOverride !== 2 && this.csOverride !== 3) this.nor.deselect();
        return 0x06 | (this.rx.length ? 0x08 : 0) | (this.rx.length >= 16 ? 0x10 : 0);
      case 0x60: // DR0
        return this.rx.length ? this.rx.shift() : 0;
    }
    return super.readUint32(offset);
  }
  writeUint32(offset, value) {
    if (offset === 0x60) {
      // With CS forced high nothing reaches the flash (but the SSI still receives a byte).
      const r = this.csOverride === 3 ? 0xff : this.nor.transfer(value & 0xff);
      if (this.rx.length < 16) this.rx.push(r);
      return;
    }
    if (offset === 0x08 && !(value & 1)) {
      // SSIENR = 0 clears the FIFOs and ends any transfer
      this.rx = [];
      if (this.csOverride !== 2) this.nor.deselect();
    }
    super.writeUint32(offset, value);
  }
}

// ---------------------------------------------------------------------------------------------
// Global state: the physical world around the chip
const world = new Map(); // GPIO -> 0/1 driven by the outside world (persists across resets)
const usbIn = []; // host -> device bytes queued (Buffers), fed as the OUT endpoint arms
let usbInOff = 0; // offset into usbIn[0]
const uartIn = [[], []];
let stalled = false; // host stopped reading IN data
let chip = null; // the running chip, or null while unplugged
let idleNs = 0; // global emulated time while there is no chip
const lastDrive = new Array(30).fill(null); // last reported drive per pin ("duty|freq" key)

// Global emulated time in ns: one base across chip resets and power cycles.
function nowNs() {
  return chip ? chip.baseNs + chip.clock.nanosCounter : idleNs;
}
const usOf = (ns) => Math.ceil(ns / 1000 - 1e-6);

// ---------------------------------------------------------------------------------------------
// Building a chip. A reset of any kind throws the old chip away and builds a new one: stock
// rp2040js cannot reset in place (its watchdog alarm refires at +0 ns forever).
const BOOTROM = (() => {
  const b = fs.readFileSync(ARGS.bootrom);
  if (b.length !== 16384) fatal(`bootrom is ${b.length} bytes, expected 16384`);
  return new Uint32Array(b.buffer, b.byteOffset, b.length / 4).slice();
})();

function buildChip({ reason = 0, scratch = null } = {}) {
  const clock = new SimulationClock();
  const mcu = new RP2040(clock);
  const c = {
    mcu,
    clock,
    baseNs: nowNs(),
    cdc: null,
    connected: false,
    outArm: 0, // size of the armed-but-unanswered CDC OUT buffer
    heldIn: [], // CDC IN buffer-control offsets held while stalled
    resetRequest: null,
    dirty: false,
  };
  mcu.logger = {
    debug() {},
    // rp2040js executes SEV as a no-op that only logs "SEV"; on a single core SEV also sets
    // the local event register, so a following WFE must not sleep.
    info(comp, msg) {
      if (msg === 'SEV') mcu.core.eventRegistered = true;
    },
    warn(comp, msg) {
      if (VERBOSE) diag(`${comp}: ${msg}`);
    },
    error(comp, msg) {
      diag(`${comp}: ${msg}`); // never throw: a Pico does not stop either
    },
  };
  mcu.loadBootrom(BOOTROM); // (also fills mcu.flash with 0xff)
  mcu.flash.set(flashImage, 0);

  // 1. writable flash
  const nor = new SpiNorFlash(mcu);
  const ssi = new FlashSSI(mcu, 'SSI', nor);
  mcu.peripherals[0x18000] = ssi;
  mcu.peripherals[0x40018] = new IOQSPI(mcu, 'IO_QSPI', ssi);
  // XIP_CTRL: CTRL (cache enabled), STAT = FIFO_EMPTY | FLUSH_READY
  mcu.peripherals[0x14000] = new RegisterFile(mcu, 'XIP_CTRL', { 0x0: 3, 0x8: 3 });
  // VREG_AND_CHIP_RESET: VREG, BOD defaults; CHIP_RESET.HAD_POR (unimplemented it reads ~0)
  mcu.peripherals[0x40064] = new RegisterFile(mcu, 'VREG_AND_CHIP_RESET', {
    0x0: 0xb1,
    0x4: 0x91,
    0x8: reason ? 0 : 0x100,
  });

  // 6. watchdog: REASON and SCRATCH survive a watchdog reset; a trigger asks for a rebuild
  const wd = mcu.peripherals[0x40058];
  wd.reason = reason;
  if (scratch) wd.scratchData.set(scratch);
  wd.onWatchdogTrigger = () => {
    // Stop its periodic alarm first: it would refire at +0 ns forever inside clock.tick().
    wd.alarm.enable = false;
    wd.timer.enable = false;
    if (!c.resetRequest) {
      c.resetRequest = { cause: wd.reason & WD_REASON_FORCE ? 'reset' : 'wdt', reason: wd.reason };
    }
    stopBatch = true;
  };

  // 5. UART: the TX FIFO drains instantly; raise TXINTR once per byte sent (the FIFO level
  // falling to the trigger level), clear it on ICR. Stock re-raised it on every check.
  mcu.uart.forEach((u, id) => {
    u.checkInterrupts = function () {
      this.rp2040.setInterrupt(this.irq, !!(this.interruptStatus & this.interruptMask));
    };
    u.onByte = (b) => {
      uartOut[id].push(b);
      u.interruptStatus |= UART_TXINTR;
      u.checkInterrupts();
    };
  });

  // 4. GPIO levels and "out" change detection: hook writes to SIO, IO_BANK0, PADS_BANK0, PWM
  const afterWrite = (periph, fn) => {
    const orig = periph.writeUint32.bind(periph);
    periph.writeUint32 = (offset, value) => {
      orig(offset, value);
      fn(offset);
    };
  };
  const touched = () => {
    refreshInputs(c);
    c.dirty = true;
    stopBatch = true; // so that a change is reported at the exact instruction
  };
  afterWrite(mcu.sio, (o) => o >= 0x10 && o <= 0x2c && touched());
  afterWrite(mcu.peripherals[0x40014], (o) => o <= 0xec && touched());
  afterWrite(mcu.peripherals[0x4001c], touched);
  afterWrite(mcu.pwm, (o) => o <= 0xa0 && touched());

  // 2./3./8. USB CDC with an emulated host
  const usb = mcu.usbCtrl;
  const cdc = new USBCDC(usb);
  c.cdc = cdc;
  cdc.onDeviceConnected = () => {
    c.connected = true;
    emit({ ev: 'connected' });
  };
  cdc.onSerialData = (buf) => {
    (stalled ? usbOutHeld : usbOut).push(Buffer.from(buf));
  };
  // Hold the OUT arm until there is data (stock answered at once, even with 0 bytes, so an
  // idle MicroPython re-armed in a tight loop).
  usb.onEndpointRead = (ep, size) => {
    if (ep === cdc.outEndpoint) {
      c.outArm = size;
      feedUsb(c);
    }
  };
  // Hold IN transfers of the CDC data endpoint while stalled: the buffer stays owned by the
  // controller, so tinyusb sees no completion and its TX FIFO fills up as with a real host.
  const origDPRAMUpdated = usb.DPRAMUpdated.bind(usb);
  usb.DPRAMUpdated = (offset, value) => {
    if (
      stalled &&
      cdc.inEndpoint > 0 &&
      offset === 0x80 + cdc.inEndpoint * 8 &&
      value & (USB_BUF_AVAILABLE | (USB_BUF_AVAILABLE << 16))
    ) {
      c.heldIn.push(offset);
      return;
    }
    origDPRAMUpdated(offset, value);
  };
  c.releaseIn = () => {
    const held = c.heldIn;
    c.heldIn = [];
    for (const off of held) origDPRAMUpdated(off, mcu.usbDPRAMView.getUint32(off, true));
  };

  mcu.core.PC = 0x10000000; // start at boot2 in flash, as the rp2040js demo does
  chip = c;
  refreshInputs(c);
  return c;
}

// Feed queued host bytes into an armed OUT endpoint (one packet per arm).
function feedUsb(c) {
  if (!c || !c.outArm || !usbIn.length) return;
  const parts = [];
  let want = c.outArm;
  while (want > 0 && usbIn.length) {
    const head = usbIn[0];
    const n = Math.min(want, head.length - usbInOff);
    parts.push(head.subarray(usbInOff, usbInOff + n));
    usbInOff += n;
    want -= n;
    if (usbInOff >= head.length) {
      usbIn.shift();
      usbInOff = 0;
    }
  }
  c.outArm = 0;
  c.mcu.usbCtrl.endpointReadDone(c.cdc.outEndpoint, new Uint8Array(Buffer.concat(parts)));
}
function clearUsbIn() {
  usbIn.length = 0;
  usbInOff = 0;
}

// Input level of every GPIO: the chip's own output if it drives the pin (SIO output enabled),
// else the world's level, else its pull (pull-up 1, pull-down 0, none 0, bus keeper: hold).
function refreshInputs(c) {
  const { mcu } = c;
  const oe = mcu.sio.gpioOutputEnable;
  for (let n = 0; n < 30; n++) {
    const pin = mcu.gpio[n];
    let level;
    if (pin.functionSelect === 5 && oe & (1 << n) && !pin.outputDisable) level = pin.outputValue;
    else if (world.has(n)) level = !!world.get(n);
    else if (pin.pullupEnabled && pin.pulldownEnabled) level = pin.rawInputValue;
    else level = pin.pullupEnabled;
    // setInputValue() raises edge IRQ bits even for an unchanged value: only call on change
    if (level !== pin.rawInputValue) pin.setInputValue(level);
  }
}

// ---------------------------------------------------------------------------------------------
// Output drive of the pins, computed from registers (not from 20 kHz edges).
function pinDrive(mcu, n) {
  const pin = mcu.gpio[n];
  const input = { duty: null, freq: 0 };
  if (pin.outputDisable) return input;
  const fsel = pin.functionSelect;
  if (fsel === 5) {
    if (!pin.outputEnable) return input;
    return { duty: pin.outputValue ? 1.0 : 0.0, freq: 0 };
  }
  if (fsel !== 4) return input; // other functions (UART, ...) are not reported
  const ch = mcu.pwm.channels[(n >> 1) & 7];
  const b = n & 1;
  if (!pin.outputEnable) return input; // B pin used as an input (gated/counting modes)
  const level = !!(mcu.pwm.gpioValue & (1 << n));
  if (!(ch.csr & 1)) return { duty: level ? 1.0 : 0.0, freq: 0 }; // disabled: last level
  const top = ch.top & 0xffff;
  const cc = b ? ch.cc >>> 16 : ch.cc & 0xffff;
  let duty = Math.min(1, cc / (top + 1));
  if (ch.csr & (b ? 8 : 4)) duty = 1 - duty; // channel invert
  const phaseCorrect = ch.csr & 2 ? 2 : 1;
  const div = (((ch.div >> 4) & 0xff) || 256) + (ch.div & 0xf) / 16;
  const freq = mcu.clkSys / div / (top + 1) / phaseCorrect;
  return { duty, freq };
}
// Compare all pins with what was last reported; returns the changed ones or null.
function driveChanges(mcu) {
  let changes = null;
  for (let n = 0; n < 30; n++) {
    const d = mcu ? pinDrive(mcu, n) : { duty: null, freq: 0 };
    const key = `${d.duty}|${d.freq}`;
    if (key !== lastDrive[n]) {
      if (lastDrive[n] !== null || d.duty !== null) {
        (changes = changes || {})[String(n)] = d;
      }
      lastDrive[n] = key;
    }
  }
  return changes;
}

// ---------------------------------------------------------------------------------------------
// Lockstep and pacing
let grantNs = -1; // chip may run until this global time
let waitingGrant = true; // stopped, waiting for a "run"
let grantT = 0; // the T of the current grant, echoed in its sync
let wallAnchor = null; // hrtime (ns, BigInt) when emulated time 0 was "now" on the wall
let stopBatch = false;
let pumpTimer = null;
let pumpImmediate = null;

function wallNs() {
  return wallAnchor === null ? 0 : Number(process.hrtime.bigint() - wallAnchor);
}
function sendSync(t) {
  waitingGrant = true;
  emit({ ev: 'sync', t });
}
function schedulePump(delayMs) {
  if (pumpTimer || pumpImmediate) return;
  if (delayMs > 0) pumpTimer = setTimeout(pump, delayMs);
  else pumpImmediate = setImmediate(pump);
}
function kick() {
  if (pumpTimer) {
    clearTimeout(pumpTimer);
    pumpTimer = null;
  }
  schedulePump(0);
}

function pump() {
  pumpTimer = null;
  pumpImmediate = null;
  if (waitingGrant) return;
  let now = nowNs();
  if (now >= grantNs) return sendSync(grantT);
  let wall = wallNs();
  if (now < wall - LAG_FORGIVE_NS) {
    // The host has been slow for a while: let emulated time stay behind instead of racing.
    wallAnchor += BigInt(Math.floor(wall - LAG_FORGIVE_NS - now));
    wall = wallNs();
  }
  const limit = Math.min(grantNs, wall + PACE_AHEAD_NS);
  if (!chip) {
    // Unplugged: time passes at wall pace with no chip.
    idleNs = Math.max(idleNs, limit);
    if (idleNs >= grantNs) return sendSync(grantT);
    return schedulePump(Math.max(1, (grantNs - PACE_AHEAD_NS - wall) / 1e6));
  }
  if (chip.mcu.core.waiting) {
    // Asleep (WFI/WFE): nothing happens until the next alarm or the grant's end. If that is
    // beyond the pacing limit, sleep on the wall clock instead of creeping towards it.
    const next = chip.clock.nextAlarm;
    const due = Math.min(grantNs, next ? chip.baseNs + next.nanos : Infinity);
    if (due > limit) {
      return schedulePump(Math.max(1, Math.min(1000, (due - PACE_AHEAD_NS - wall) / 1e6)));
    }
  } else if (now >= limit) {
    return schedulePump(1); // busy but ahead of wall time: let the wall catch up
  }
  try {
    runBatch(chip, limit - chip.baseNs);
  } catch (e) {
    diag(e.stack || String(e));
    fatal('emulation error');
  }
  afterBatch();
  if (!waitingGrant) schedulePump(0);
}

// Bring a sleeping chip's clock up to the wall-paced present before the outside world acts on
// it (host bytes, pin levels), so the event happens at a realistic emulated time.
function catchUp() {
  if (!chip || waitingGrant || !chip.mcu.core.waiting) return;
  const { clock, baseNs } = chip;
  const next = clock.nextAlarm;
  const target = Math.min(grantNs, wallNs(), next ? baseNs + next.nanos : Infinity) - baseNs;
  if (target > clock.nanosCounter) clock.tick(target - clock.nanosCounter);
}

function runBatch(c, limitLocal) {
  const { mcu, clock } = c;
  const core = mcu.core;
  const cycleNs = 1e9 / (mcu.clkSys || 125e6);
  stopBatch = false;
  let budget = BATCH_INSTR;
  while (!stopBatch && clock.nanosCounter < limitLocal && budget > 0) {
    if (core.waiting) {
      // WFI/WFE: jump to the next alarm, but not past the limit.
      const next = clock.nextAlarm;
      if (next && next.nanos <= limitLocal) clock.tick(Math.max(0, next.nanos - clock.nanosCounter));
      else clock.tick(limitLocal - clock.nanosCounter);
      budget -= 10;
      continue;
    }
    for (let i = 0; i < 1000 && !stopBatch && !core.waiting && clock.nanosCounter < limitLocal; i++) {
      clock.tick(core.executeInstruction() * cycleNs);
    }
    budget -= 1000;
  }
}

function afterBatch() {
  const c = chip;
  if (!c) return;
  if (c.resetRequest) {
    const { cause, reason } = c.resetRequest;
    const scratch = c.mcu.peripherals[0x40058].scratchData.slice();
    emit({ ev: 'reset', cause, t: usOf(nowNs()) });
    dropChip();
    buildChip({ reason, scratch });
    checkDrive();
    return;
  }
  feedUart(c);
  if (c.dirty) {
    c.dirty = false;
    checkDrive();
  }
  flushOutput();
}

// Report changed pin drive; an "out" event stops the chip until the next grant.
function checkDrive() {
  const changes = driveChanges(chip ? chip.mcu : null);
  if (changes) {
    waitingGrant = true;
    emit({ ev: 'out', t: usOf(nowNs()), pins: changes });
  }
}

// Throw the chip away (reset, unplug): USB goes down with it.
function dropChip() {
  if (!chip) return;
  idleNs = nowNs();
  const wasConnected = chip.connected;
  chip = null;
  clearUsbIn();
  usbOutHeld = []; // bytes the host had not read die with the device's connection
  if (wasConnected) emit({ ev: 'disconnected' });
}

// ---------------------------------------------------------------------------------------------
// Commands from the parent
function handle(msg) {
  catchUp(); // whatever the parent does, it does it "now"
  switch (msg.op) {
    case 'run': {
      const T = Number(msg.until);
      if (!Number.isFinite(T)) return diag(`bad run: ${JSON.stringify(msg)}`);
      if (wallAnchor === null) wallAnchor = process.hrtime.bigint(); // time starts flowing
      const now = nowNs();
      if (T * 1000 <= now) {
        grantNs = now;
        return sendSync(usOf(now));
      }
      grantNs = T * 1000;
      grantT = T;
      waitingGrant = false;
      return kick();
    }
    case 'halt':
      // Always answered by exactly one sync, even if already stopped.
      grantNs = nowNs();
      return sendSync(usOf(grantNs));
    case 'usb': {
      if (!chip || !chip.connected) return; // no host connection: bytes are lost
      const data = Buffer.from(msg.data || '', 'base64');
      if (data.length) usbIn.push(data);
      feedUsb(chip);
      return waitingGrant ? undefined : kick();
    }
    case 'in':
      for (const [k, v] of Object.entries(msg.pins || {})) {
        const n = Number(k);
        if (!(n >= 0 && n < 30)) continue;
        if (v === null || v === undefined) world.delete(n);
        else world.set(n, v ? 1 : 0);
      }
      if (chip) refreshInputs(chip);
      return waitingGrant ? undefined : kick();
    case 'stall':
      stalled = true;
      return;
    case 'unstall':
      stalled = false;
      usbOut.push(...usbOutHeld);
      usbOutHeld = [];
      if (chip) chip.releaseIn();
      flushOutput();
      return waitingGrant ? undefined : kick();
    case 'unplug':
      if (!chip) return;
      dropChip();
      checkDrive(); // power is gone: nothing drives any pin
      return waitingGrant ? undefined : kick();
    case 'plug':
      if (chip) return;
      buildChip();
      checkDrive();
      return waitingGrant ? undefined : kick();
    case 'reset':
      // RUN pin: fresh chip from flash; watchdog REASON and SCRATCH cleared (power-on cause)
      if (!chip) return;
      dropChip();
      buildChip();
      checkDrive();
      return waitingGrant ? undefined : kick();
    case 'uart': {
      const id = msg.id === 1 ? 1 : 0;
      uartIn[id].push(...Buffer.from(msg.data || '', 'base64'));
      feedUart(chip);
      return waitingGrant ? undefined : kick();
    }
    case 'quit':
      flushOutput();
      return process.exit(0);
    default:
      diag(`unknown op: ${JSON.stringify(msg)}`);
  }
}
// UART RX: feed queued bytes as the 32-byte RX FIFO has room
function feedUart(c) {
  if (!c) return;
  c.mcu.uart.forEach((u, id) => {
    while (uartIn[id].length && !u.rxFIFO.full) u.feedByte(uartIn[id].shift());
  });
}

// ---------------------------------------------------------------------------------------------
// Start
openFlash();
if (ARGS.uf2) loadUF2(ARGS.uf2);
buildChip();
driveChanges(chip.mcu); // baseline: every pin an input
emit({ ev: 'ready', t: 0 });

const IN_FD = ARGS['in-fd'] !== undefined ? Number(ARGS['in-fd']) : 3;
const input = fs.createReadStream(null, { fd: IN_FD, highWaterMark: 1 << 16 });
input.on('error', (e) => fatal(`fd 3: ${e.message}`));
const rl = readline.createInterface({ input, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    return diag(`bad JSON on fd 3: ${line.slice(0, 200)}`);
  }
  handle(msg);
});
rl.on('close', () => {
  // The parent died (or closed its end): nothing more to do.
  flushOutput();
  process.exit(0);
});
