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
//   5. UARTs with time: bytes leave at the baud rate through a 32-byte TX FIFO (PL011 flags,
//      TX interrupt at the trigger level, TX DREQ); host bytes arrive one frame apart
//   6. watchdog/machine.reset() rebuild a fresh chip (REASON + SCRATCH kept)
//   8. "stall": IN transfers of the CDC data endpoint are held until "unstall"
//   9. speed: a faster instruction loop in place of executeInstruction() + clock.tick()
//  10. CPU flags of ADCS/SBCS/LSLS/LSRS/ASRS/RORS as ARMv6-M says (stock got 4 families wrong)
//  11. DMA transfers take a clk_sys cycle each; an abort leaves the count at 0
//  12. SPI frames take their time at the SPI clock (stock: SPI with DMA hung)
//  13. PIO state machines run on the chip's clock (CLKDIV, delay cycles)
//  14. how long each input edge waits for the chip to take it (issue 20): see watchEdges()
//  15. the chip's time of each newline each way on USB (issue 32): see newlines()
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const util = require('util');
const { randomInt } = require('crypto');

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
// 15. Line times (issue 32): the chip's clock (us) when each newline of the host's reached
// the device (an OUT transfer done) and when each newline of the device's reached the host
// (an IN transfer done): a request's round trip in chip time, whatever the host machine does
let nlOut = []; // device -> host newlines, not yet reported
let nlIn = []; // host -> device newlines, not yet reported
const newlines = (buf, list) => {
  for (let i = 0; i < buf.length; i++) if (buf[i] === 10) list.push(usOf(nowNs()));
};
const uartOut = [[], []];
function flushOutput() {
  if (usbOut.length || nlIn.length) {
    const data = Buffer.concat(usbOut);
    usbOut = [];
    writeLine({ ev: 'usb', data: data.toString('base64'), nl: nlOut, nl_in: nlIn });
    nlOut = [];
    nlIn = [];
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

// ROSC: RANDOMBIT (0x1c) is the ring oscillator's jitter, a fresh random bit at every read,
// as on a chip: pico_rand seeds MicroPython's os.urandom and `random` from it. (Left
// unimplemented it read 0xffffffff, so every boot drew the same "random" numbers: the
// launcher's boot id, which tells a host that it restarted, came out the same after a
// reset.) The other registers stay as rp2040js leaves them: reads ~0, writes ignored.
class Rosc extends BasePeripheral {
  readUint32(offset) {
    return offset === 0x1c ? randomInt(2) : 0xffffffff;
  }
  writeUint32() {}
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
// 10. CPU flags. rp2040js 1.4.1 computes ADCS/SBCS by folding the carry into an operand
// (wrong V when that operand is 0x7FFFFFFF), LSLS by register takes bit -1 for shifts of
// 33-255, and LSRS/ASRS/RORS by register change C for a shift of 0 (issue 26; found with
// tests/test_rp2040_isa.py against the ARMv6-M rules). armv6mDataProcessing() executes these
// six instructions (data-processing encoding T1, opcodes 2-7) as ARMv6-M's AddWithCarry() and
// Shift_C() say; the fast decoder calls it and the stock core is patched to call it too.
function addWithCarry(core, x, y, carry) {
  const sum = (x >>> 0) + (y >>> 0) + carry;
  const result = sum >>> 0;
  core.N = result >= 0x80000000;
  core.Z = result === 0;
  core.C = sum > 0xffffffff;
  core.V = ((x ^ result) & (y ^ result) & 0x80000000) !== 0; // both operands' sign lost
  return result;
}
function armv6mDataProcessing(core, op) {
  const R = core.registers;
  const Rdn = op & 7;
  const m = R[(op >> 3) & 7];
  const input = R[Rdn];
  const kind = (op >> 6) & 0xf;
  if (kind === 5) {
    R[Rdn] = addWithCarry(core, input, m, core.C ? 1 : 0); // ADCS
    return;
  }
  if (kind === 6) {
    R[Rdn] = addWithCarry(core, input, ~m, core.C ? 1 : 0); // SBCS
    return;
  }
  const n = m & 0xff; // shift by register: the bottom byte of Rm; 0 leaves C as it was
  let result = input >>> 0;
  let c = core.C;
  if (n) {
    switch (kind) {
      case 2: // LSLS
        result = n < 32 ? (input << n) >>> 0 : 0;
        c = n < 32 ? !!((input >>> (32 - n)) & 1) : n === 32 && !!(input & 1);
        break;
      case 3: // LSRS
        result = n < 32 ? input >>> n : 0;
        c = n < 32 ? !!((input >>> (n - 1)) & 1) : n === 32 && !!(input >>> 31);
        break;
      case 4: // ASRS
        result = (n < 32 ? input >> n : input >> 31) >>> 0;
        c = !!((input >>> (n < 32 ? n - 1 : 31)) & 1);
        break;
      default: {
        // RORS: C is the result's top bit
        const r = n & 31;
        result = r ? ((input >>> r) | (input << (32 - r))) >>> 0 : input >>> 0;
        c = !!(result >>> 31);
      }
    }
  }
  R[Rdn] = result;
  core.N = result >= 0x80000000;
  core.Z = result === 0;
  core.C = c;
}
// The stock core, for the instructions the fast decoder leaves to it (and every instruction
// with UNOLAUNCH_RP2_CORE=stock): the same six instructions go to armv6mDataProcessing().
{
  const { CortexM0Core } = lib('cortex-m0-core.js');
  const stockExecute = CortexM0Core.prototype.executeInstruction;
  CortexM0Core.prototype.executeInstruction = function () {
    // Take a pending exception first, exactly as the stock core does, and only once.
    let recheck = false;
    if (this.interruptsUpdated) {
      if (this.checkForInterrupts()) this.waiting = false;
      recheck = this.interruptsUpdated;
      this.interruptsUpdated = false;
    }
    const op = this.readUint16(this.PC & ~1);
    let cycles;
    if (op >>> 6 >= 0x102 && op >>> 6 <= 0x107) {
      this.PC += 2;
      armv6mDataProcessing(this, op);
      this.cycles += 1;
      cycles = 1;
    } else cycles = stockExecute.call(this);
    if (recheck) this.interruptsUpdated = true;
    return cycles;
  };
}
const STOCK_CORE = process.env.UNOLAUNCH_RP2_CORE === 'stock'; // (tests: check the fallback)

// ---------------------------------------------------------------------------------------------
// 11. DMA with time. Stock rp2040js made each transfer at +0 ns, and an alarm linked at the
// same time as others runs first, so a DMA chain ran ahead of everything (a 16 KiB copy "took"
// 9 us; the TX DMA of an SPI transfer outran its RX DMA). A transfer takes one clk_sys cycle,
// as the RP2040's DMA sustains one transfer per cycle. An abort ends the sequence with the
// transfer count at 0 (the RP2040 drains a channel by zeroing its counter; stock kept the
// count it had, so TRANS_COUNT read e.g. 60 after close()).
{
  const { RPDMAChannel } = lib('peripherals/dma.js');
  const TREQ_PERMANENT = 0x3f;
  RPDMAChannel.prototype.scheduleTransfer = function () {
    if (this.dma.dreq[this.treqValue] || this.treqValue === TREQ_PERMANENT) {
      this.transferAlarm.schedule(1e9 / (this.rp2040.clkSys || 125e6));
    } else {
      const delay = this.dma.getTimer(this.treqValue);
      if (delay) this.transferAlarm.schedule(delay * 1000);
    }
  };
  const stockAbort = RPDMAChannel.prototype.abort;
  RPDMAChannel.prototype.abort = function () {
    stockAbort.call(this);
    this.transCount = 0;
  };
}

// ---------------------------------------------------------------------------------------------
// 13. PIO on the chip's clock. Stock rp2040js ran the state machines off the host's event
// loop (1000 instructions per setTimeout, whatever their clock dividers and delays), so PIO
// took no emulated time in one place and far too much in another (I2S at 11025 Hz: 0.4 s of
// samples took 1.2-1.9 s of chip time). Here each state machine executes one instruction per
// CLKDIV system clocks (integer and fraction), an instruction's delay cycles stall it, and the
// PIO block is advanced in 10 us steps of chip time while any machine is enabled.
{
  const { RPPIO } = lib('peripherals/pio.js');
  const PIO_STEP_NS = 10000;
  RPPIO.prototype.run = function () {
    if (!this.timedAlarm) {
      this.timedAlarm = this.rp2040.clock.createAlarm(() => this.timedRun());
      this.smCredit = [0, 0, 0, 0]; // state machine cycles due, carried between steps
      this.smStall = [0, 0, 0, 0]; // delay cycles still to wait
      this.timedScheduled = false;
    }
    if (!this.timedScheduled) {
      this.timedScheduled = true;
      this.timedAlarm.schedule(PIO_STEP_NS);
    }
  };
  RPPIO.prototype.timedRun = function () {
    this.timedScheduled = false;
    if (this.stopped) return;
    const sysCycles = (PIO_STEP_NS * (this.rp2040.clkSys || 125e6)) / 1e9;
    for (let i = 0; i < 4; i++) {
      const m = this.machines[i];
      if (!m.enabled) {
        this.smCredit[i] = 0;
        this.smStall[i] = 0;
        continue;
      }
      let credit = this.smCredit[i] + sysCycles / ((m.clockDivInt || 65536) + m.clockDivFrac / 256);
      while (credit >= 1) {
        credit -= 1;
        if (this.smStall[i] > 0) {
          this.smStall[i]--;
          continue;
        }
        const before = m.cycles;
        m.step();
        this.smStall[i] = Math.max(0, m.cycles - before - 1);
        this.checkChangedPins();
      }
      this.smCredit[i] = credit;
    }
    this.run();
  };
  const stockStop = RPPIO.prototype.stop;
  RPPIO.prototype.stop = function () {
    stockStop.call(this);
    if (this.timedAlarm) this.timedAlarm.cancel();
    this.timedScheduled = false;
  };
}

// ---------------------------------------------------------------------------------------------
// 9. Speed: rp2040js's CortexM0Core.executeInstruction() walks one long if/else chain per
// instruction and reaches SRAM through several range checks, and the run loop called
// clock.tick() after every instruction. makeFastCore() returns run(), which executes a run of
// instructions itself: one switch-dispatched decoder for the data-processing, load/store and
// branch instructions, direct typed-array access to SRAM, flash and ROM (and a direct path to
// SIO, where the SDK's hardware divider lives), and the clock advanced in place, through
// clock.tick() only when an alarm is due. Anything else (a pending exception, system
// instructions, SVC/BKPT/UDF, WFE/WFI/SEV, CPS, MSR/MRS, barriers) goes to the stock
// executeInstruction(), which re-fetches the instruction: nothing is changed before that
// fallback. Every handled instruction computes exactly what the stock one does (results, flags,
// cycle counts, the bus accesses it makes, the time peripherals see), so emulated behaviour and
// timing are unchanged; core.cycles is brought up to date when run() returns.
function makeFastCore(mcu) {
  const clock = mcu.clock;
  const core = mcu.core;
  const R = core.registers;
  const RAM = 0x20000000;
  const sram8 = mcu.sram;
  const sram16 = new Uint16Array(sram8.buffer, sram8.byteOffset, sram8.length >> 1);
  const sram32 = new Uint32Array(sram8.buffer, sram8.byteOffset, sram8.length >> 2);
  const SRAM_LEN = sram8.length;
  const flash8 = mcu.flash;
  const flash16 = new Uint16Array(flash8.buffer, flash8.byteOffset, flash8.length >> 1);
  const flash32 = new Uint32Array(flash8.buffer, flash8.byteOffset, flash8.length >> 2);
  const FLASH = 0x10000000;
  const FLASH_LEN = flash8.length; // 16 MiB: the XIP window 0x10000000-0x10ffffff
  const rom32 = mcu.bootrom;
  const rom16 = new Uint16Array(rom32.buffer, rom32.byteOffset, rom32.length * 2);
  const rom8 = new Uint8Array(rom32.buffer, rom32.byteOffset, rom32.length * 4);
  const ROM_LEN = rom32.length * 4;

  // Memory: fast paths where stock rp2040js would reach the same array, else the stock bus.
  function rd32(a) {
    const u = a >>> 0;
    if ((u & 3) === 0) {
      const o = u - RAM;
      if (o >= 0 && o < SRAM_LEN) return sram32[o >>> 2];
      if (u >= FLASH && u < 0x14000000) return flash32[(u & 0xffffff) >>> 2]; // 4 XIP mirrors
      if (u < ROM_LEN) return rom32[u >>> 2];
      if (u >= 0xd0000000 && u < 0xe0000000) return mcu.sio.readUint32(u - 0xd0000000); // SIO
    }
    return mcu.readUint32(a);
  }
  function rd16(a) {
    const u = a >>> 0;
    if ((u & 1) === 0) {
      const o = u - RAM;
      if (o >= 0 && o < SRAM_LEN) return sram16[o >>> 1];
      const f = u - FLASH;
      if (f >= 0 && f < FLASH_LEN) return flash16[f >>> 1];
      if (u < ROM_LEN) return rom16[u >>> 1];
    }
    return mcu.readUint16(a);
  }
  function rd8(a) {
    const u = a >>> 0;
    const o = u - RAM;
    if (o >= 0 && o < SRAM_LEN) return sram8[o];
    const f = u - FLASH;
    if (f >= 0 && f < FLASH_LEN) return flash8[f];
    if (u < ROM_LEN) return rom8[u];
    return mcu.readUint8(a);
  }
  // (no peripheral is mapped over SRAM, so stock writes there land in the array too)
  function wr32(a, v) {
    const u = a >>> 0;
    const o = u - RAM;
    if ((u & 3) === 0 && o >= 0 && o < SRAM_LEN) sram32[o >>> 2] = v;
    else if (u >= 0xd0000000 && u < 0xe0000000) mcu.sio.writeUint32(u - 0xd0000000, v); // SIO
    else mcu.writeUint32(a, v);
  }
  function wr16(a, v) {
    const u = a >>> 0;
    const o = u - RAM;
    if ((u & 1) === 0 && o >= 0 && o < SRAM_LEN) sram16[o >>> 1] = v;
    else mcu.writeUint16(a, v);
  }
  function wr8(a, v) {
    const u = a >>> 0;
    const o = u - RAM;
    if (o >= 0 && o < SRAM_LEN) sram8[o] = v;
    else mcu.writeUint8(a, v);
  }
  // instruction fetch: flash first
  function fetch(a) {
    const f = a - FLASH;
    if (f >= 0 && f < FLASH_LEN) return flash16[f >>> 1];
    return rd16(a);
  }
  // core.cyclesIO(): SIO 0, APB 3 (read) / 4 (write), anything else 1
  function io(a, w) {
    const u = a >>> 0;
    if (u >= 0xd0000000 && u < 0xe0000000) return 0;
    if (u >= 0x40000000 && u < 0x50000000) return w ? 4 : 3;
    return 1;
  }

  function run(limit, budget, cycleNs) {
    let n = 0;
    let cycles = 0; // of the instructions done here (the stock core counts its own)
    let now = clock.nanosCounter;
    while (n < budget && !stopBatch && now < limit) {
      n++;
      let cyc = 1;
      if (core.interruptsUpdated || STOCK_CORE) cyc = -1;
      else {
        const pc = R[15];
        const opcodePC = pc & ~1;
        const op = fetch(opcodePC);
        dispatch: switch (op >>> 11) {
          case 0x00: {
            // LSLS (immediate)
            const imm5 = (op >> 6) & 0x1f;
            const input = R[(op >> 3) & 7];
            const result = input << imm5;
            R[15] = pc + 2;
            R[op & 7] = result;
            core.N = !!(result & 0x80000000);
            core.Z = result === 0;
            if (imm5) core.C = !!(input & (1 << (32 - imm5)));
            break;
          }
          case 0x01: {
            // LSRS (immediate)
            const imm5 = (op >> 6) & 0x1f;
            const input = R[(op >> 3) & 7];
            const result = imm5 ? input >>> imm5 : 0;
            R[15] = pc + 2;
            R[op & 7] = result;
            core.N = !!(result & 0x80000000);
            core.Z = result === 0;
            core.C = !!((input >>> (imm5 ? imm5 - 1 : 31)) & 0x1);
            break;
          }
          case 0x02: {
            // ASRS (immediate)
            const imm5 = (op >> 6) & 0x1f;
            const input = R[(op >> 3) & 7];
            const shiftN = imm5 ? imm5 : 32;
            const result = shiftN < 32 ? input >> shiftN : (input & 0x80000000) >> 31;
            R[15] = pc + 2;
            R[op & 7] = result;
            core.N = !!(result & 0x80000000);
            core.Z = (result & 0xffffffff) === 0;
            core.C = input & (1 << (shiftN - 1)) ? true : false;
            break;
          }
          case 0x03: {
            // ADDS/SUBS (register, 3-bit immediate)
            const Rn = (op >> 3) & 7;
            const x = (op >> 6) & 7; // Rm or imm3
            R[15] = pc + 2;
            switch ((op >> 9) & 3) {
              case 0:
                R[op & 7] = core.addUpdateFlags(R[Rn], R[x]);
                break;
              case 1:
                R[op & 7] = core.substractUpdateFlags(R[Rn], R[x]);
                break;
              case 2:
                R[op & 7] = core.addUpdateFlags(R[Rn], x);
                break;
              default:
                R[op & 7] = core.substractUpdateFlags(R[Rn], x);
            }
            break;
          }
          case 0x04: {
            // MOVS (immediate)
            const value = op & 0xff;
            R[15] = pc + 2;
            R[(op >> 8) & 7] = value;
            core.N = false;
            core.Z = value === 0;
            break;
          }
          case 0x05: // CMP (immediate)
            R[15] = pc + 2;
            core.substractUpdateFlags(R[(op >> 8) & 7], op & 0xff);
            break;
          case 0x06: {
            // ADDS (8-bit immediate)
            const Rdn = (op >> 8) & 7;
            R[15] = pc + 2;
            R[Rdn] = core.addUpdateFlags(R[Rdn], op & 0xff);
            break;
          }
          case 0x07: {
            // SUBS (8-bit immediate)
            const Rdn = (op >> 8) & 7;
            R[15] = pc + 2;
            R[Rdn] = core.substractUpdateFlags(R[Rdn], op & 0xff);
            break;
          }
          case 0x08:
            if (!(op & 0x400)) {
              // data processing (register)
              const Rm = (op >> 3) & 7;
              const Rdn = op & 7;
              R[15] = pc + 2;
              switch ((op >> 6) & 0xf) {
                case 0: {
                  // ANDS
                  const result = R[Rdn] & R[Rm];
                  R[Rdn] = result;
                  core.N = !!(result & 0x80000000);
                  core.Z = (result & 0xffffffff) === 0;
                  break;
                }
                case 1: {
                  // EORS
                  const result = R[Rm] ^ R[Rdn];
                  R[Rdn] = result;
                  core.N = !!(result & 0x80000000);
                  core.Z = result === 0;
                  break;
                }
                case 2: // LSLS (register)
                case 3: // LSRS (register)
                case 4: // ASRS (register)
                case 5: // ADCS
                case 6: // SBCS
                case 7: // RORS
                  armv6mDataProcessing(core, op);
                  break;
                case 8: {
                  // TST
                  const result = R[Rdn] & R[Rm];
                  core.N = !!(result & 0x80000000);
                  core.Z = result === 0;
                  break;
                }
                case 9: // RSBS (NEGS)
                  R[Rdn] = core.substractUpdateFlags(0, R[Rm]);
                  break;
                case 10: // CMP (register)
                  core.substractUpdateFlags(R[Rdn], R[Rm]);
                  break;
                case 11: // CMN
                  core.addUpdateFlags(R[Rdn], R[Rm]);
                  break;
                case 12: {
                  // ORRS
                  const result = R[Rdn] | R[Rm];
                  R[Rdn] = result;
                  core.N = !!(result & 0x80000000);
                  core.Z = (result & 0xffffffff) === 0;
                  break;
                }
                case 13: {
                  // MULS
                  const result = Math.imul(R[Rm], R[Rdn]);
                  R[Rdn] = result;
                  core.N = !!(result & 0x80000000);
                  core.Z = (result & 0xffffffff) === 0;
                  break;
                }
                case 14: {
                  // BICS
                  const result = R[Rdn] & ~R[Rm];
                  R[Rdn] = result;
                  core.N = !!(result & 0x80000000);
                  core.Z = result === 0;
                  break;
                }
                default: {
                  // MVNS
                  const result = ~R[Rm];
                  R[Rdn] = result;
                  core.N = !!(result & 0x80000000);
                  core.Z = result === 0;
                }
              }
            } else {
              switch ((op >> 8) & 3) {
                case 0: {
                  // ADD (register), high registers allowed
                  const Rm = (op >> 3) & 0xf;
                  const Rdn = ((op & 0x80) >> 4) | (op & 0x7);
                  const PC = pc + 2;
                  R[15] = PC;
                  const leftValue = Rdn === 15 ? PC + 2 : R[Rdn];
                  const rightValue = Rm === 15 ? PC + 2 : R[Rm];
                  const result = leftValue + rightValue;
                  if (Rdn !== 13 && Rdn !== 15) R[Rdn] = result;
                  else if (Rdn === 15) {
                    R[15] = result & ~0x1;
                    cyc++;
                  } else R[13] = result & ~0x3;
                  break;
                }
                case 1: {
                  // CMP (register), encoding T2
                  const Rm = (op >> 3) & 0xf;
                  const Rn = ((op >> 4) & 0x8) | (op & 0x7);
                  R[15] = pc + 2;
                  core.substractUpdateFlags(R[Rn], R[Rm]);
                  break;
                }
                case 2: {
                  // MOV (register)
                  const Rm = (op >> 3) & 0xf;
                  const Rd = ((op >> 4) & 0x8) | (op & 0x7);
                  const PC = pc + 2;
                  R[15] = PC;
                  let value = Rm === 15 ? PC + 2 : R[Rm];
                  if (Rd === 15) {
                    cyc++;
                    value &= ~1;
                  } else if (Rd === 13) value &= ~3;
                  R[Rd] = value;
                  break;
                }
                default: {
                  if (op & 7) { cyc = -1; break dispatch; }
                  const Rm = (op >> 3) & 0xf;
                  R[15] = pc + 2;
                  if (op & 0x80) {
                    // BLX (register)
                    R[14] = R[15] | 0x1;
                    R[15] = R[Rm] & ~1;
                    cyc++;
                    core.blTaken(core, true);
                  } else {
                    // BX
                    core.BXWritePC(R[Rm]);
                    cyc++;
                  }
                }
              }
            }
            break;
          case 0x09: {
            // LDR (literal)
            const PC = pc + 2;
            R[15] = PC;
            const addr = ((PC + 2) & 0xfffffffc) + ((op & 0xff) << 2);
            cyc += io(addr, false);
            R[(op >> 8) & 7] = rd32(addr);
            break;
          }
          case 0x0a:
          case 0x0b: {
            // load/store (register offset)
            const addr = R[(op >> 6) & 7] + R[(op >> 3) & 7];
            const Rt = op & 7;
            R[15] = pc + 2;
            switch ((op >> 9) & 7) {
              case 0: // STR
                cyc += io(addr, true);
                wr32(addr, R[Rt]);
                break;
              case 1: // STRH
                cyc += io(addr, true);
                wr16(addr, R[Rt]);
                break;
              case 2: // STRB
                cyc += io(addr, true);
                wr8(addr, R[Rt]);
                break;
              case 3: // LDRSB
                cyc += io(addr, false);
                R[Rt] = (rd8(addr) << 24) >> 24;
                break;
              case 4: // LDR
                cyc += io(addr, false);
                R[Rt] = rd32(addr);
                break;
              case 5: // LDRH
                cyc += io(addr, false);
                R[Rt] = rd16(addr);
                break;
              case 6: // LDRB
                cyc += io(addr, false);
                R[Rt] = rd8(addr);
                break;
              default: // LDRSH
                cyc += io(addr, false);
                R[Rt] = (rd16(addr) << 16) >> 16;
            }
            break;
          }
          case 0x0c: {
            // STR (immediate)
            const addr = R[(op >> 3) & 7] + (((op >> 6) & 0x1f) << 2);
            R[15] = pc + 2;
            cyc += io(addr, true);
            wr32(addr, R[op & 7]);
            break;
          }
          case 0x0d: {
            // LDR (immediate)
            const addr = R[(op >> 3) & 7] + (((op >> 6) & 0x1f) << 2);
            R[15] = pc + 2;
            cyc += io(addr, false);
            R[op & 7] = rd32(addr);
            break;
          }
          case 0x0e: {
            // STRB (immediate)
            const addr = R[(op >> 3) & 7] + ((op >> 6) & 0x1f);
            R[15] = pc + 2;
            cyc += io(addr, true);
            wr8(addr, R[op & 7]);
            break;
          }
          case 0x0f: {
            // LDRB (immediate)
            const addr = R[(op >> 3) & 7] + ((op >> 6) & 0x1f);
            R[15] = pc + 2;
            cyc += io(addr, false);
            R[op & 7] = rd8(addr);
            break;
          }
          case 0x10: {
            // STRH (immediate)
            const addr = R[(op >> 3) & 7] + (((op >> 6) & 0x1f) << 1);
            R[15] = pc + 2;
            cyc += io(addr, true);
            wr16(addr, R[op & 7]);
            break;
          }
          case 0x11: {
            // LDRH (immediate)
            const addr = R[(op >> 3) & 7] + (((op >> 6) & 0x1f) << 1);
            R[15] = pc + 2;
            cyc += io(addr, false);
            R[op & 7] = rd16(addr);
            break;
          }
          case 0x12: {
            // STR (SP plus immediate)
            const addr = R[13] + ((op & 0xff) << 2);
            R[15] = pc + 2;
            cyc += io(addr, true);
            wr32(addr, R[(op >> 8) & 7]);
            break;
          }
          case 0x13: {
            // LDR (SP plus immediate)
            const addr = R[13] + ((op & 0xff) << 2);
            R[15] = pc + 2;
            cyc += io(addr, false);
            R[(op >> 8) & 7] = rd32(addr);
            break;
          }
          case 0x14: // ADR
            R[15] = pc + 2;
            R[(op >> 8) & 7] = (opcodePC & 0xfffffffc) + 4 + ((op & 0xff) << 2);
            break;
          case 0x15: // ADD (Rd = SP plus immediate)
            R[15] = pc + 2;
            R[(op >> 8) & 7] = R[13] + ((op & 0xff) << 2);
            break;
          case 0x16:
          case 0x17:
            switch (op >>> 8) {
              case 0xb0: // ADD/SUB (SP plus/minus immediate)
                R[15] = pc + 2;
                if (op & 0x80) R[13] = (R[13] - ((op & 0x7f) << 2)) & ~0x3;
                else R[13] = (R[13] + ((op & 0x7f) << 2)) & ~0x3;
                break;
              case 0xb2: {
                // SXTH, SXTB, UXTH, UXTB
                const v = R[(op >> 3) & 7];
                R[15] = pc + 2;
                switch ((op >> 6) & 3) {
                  case 0:
                    R[op & 7] = (v << 16) >> 16;
                    break;
                  case 1:
                    R[op & 7] = (v << 24) >> 24;
                    break;
                  case 2:
                    R[op & 7] = v & 0xffff;
                    break;
                  default:
                    R[op & 7] = v & 0xff;
                }
                break;
              }
              case 0xb4:
              case 0xb5: {
                // PUSH
                const bitCount = POPCOUNT9[op & 0x1ff];
                R[15] = pc + 2;
                let address = R[13] - 4 * bitCount;
                for (let i = 0; i <= 7; i++) {
                  if (op & (1 << i)) {
                    wr32(address, R[i]);
                    cyc++;
                    address += 4;
                  }
                }
                if (op & 0x100) wr32(address, R[14]);
                R[13] = (R[13] - 4 * bitCount) & ~0x3;
                break;
              }
              case 0xba: {
                // REV, REV16, REVSH
                const kind = (op >> 6) & 3;
                if (kind === 2) { cyc = -1; break dispatch; }
                const input = R[(op >> 3) & 7];
                R[15] = pc + 2;
                if (kind === 0) {
                  R[op & 7] =
                    ((input & 0xff) << 24) |
                    (((input >> 8) & 0xff) << 16) |
                    (((input >> 16) & 0xff) << 8) |
                    ((input >> 24) & 0xff);
                } else if (kind === 1) {
                  R[op & 7] =
                    (((input >> 16) & 0xff) << 24) |
                    (((input >> 24) & 0xff) << 16) |
                    ((input & 0xff) << 8) |
                    ((input >> 8) & 0xff);
                } else {
                  R[op & 7] = ((((input & 0xff) << 8) | ((input >> 8) & 0xff)) << 16) >> 16;
                }
                break;
              }
              case 0xbc:
              case 0xbd: {
                // POP
                R[15] = pc + 2;
                let address = R[13];
                for (let i = 0; i <= 7; i++) {
                  if (op & (1 << i)) {
                    R[i] = rd32(address);
                    address += 4;
                    cyc++;
                  }
                }
                if (op & 0x100) {
                  R[13] = (address + 4) & ~0x3;
                  core.BXWritePC(rd32(address));
                  cyc += 2;
                } else R[13] = address & ~0x3;
                break;
              }
              default:
                { cyc = -1; break dispatch; }
            }
            break;
          case 0x18: {
            // STMIA
            const Rn = (op >> 8) & 0x7;
            R[15] = pc + 2;
            let address = R[Rn];
            for (let i = 0; i < 8; i++) {
              if (op & (1 << i)) {
                wr32(address, R[i]);
                address += 4;
                cyc++;
              }
            }
            if (!(op & (1 << Rn))) R[Rn] = address;
            break;
          }
          case 0x19: {
            // LDMIA
            const Rn = (op >> 8) & 0x7;
            R[15] = pc + 2;
            let address = R[Rn];
            for (let i = 0; i < 8; i++) {
              if (op & (1 << i)) {
                R[i] = rd32(address);
                address += 4;
                cyc++;
              }
            }
            if (!(op & (1 << Rn))) R[Rn] = address;
            break;
          }
          case 0x1a:
          case 0x1b: {
            // B (conditional); UDF and SVC go to the stock core
            const cond = (op >> 8) & 0xf;
            if (cond >= 0xe) { cyc = -1; break dispatch; }
            let imm8 = (op & 0xff) << 1;
            if (imm8 & (1 << 8)) imm8 = (imm8 & 0x1ff) - 0x200;
            R[15] = pc + 2;
            if (core.checkCondition(cond)) {
              R[15] = pc + 4 + imm8;
              cyc++;
            }
            break;
          }
          case 0x1c: {
            // B
            let imm11 = (op & 0x7ff) << 1;
            if (imm11 & (1 << 11)) imm11 = (imm11 & 0x7ff) - 0x800;
            R[15] = pc + 4 + imm11;
            cyc++;
            break;
          }
          case 0x1e: {
            // BL (the other 32-bit instructions go to the stock core)
            const op2 = rd16(opcodePC + 2);
            if (op2 >> 14 !== 0b11 || ((op2 >> 12) & 0x1) !== 1) { cyc = -1; break dispatch; }
            const imm11 = op2 & 0x7ff;
            const J2 = (op2 >> 11) & 0x1;
            const J1 = (op2 >> 13) & 0x1;
            const imm10 = op & 0x3ff;
            const S = (op >> 10) & 0x1;
            const I1 = 1 - (S ^ J1);
            const I2 = 1 - (S ^ J2);
            const imm32 =
              ((S ? 0b11111111 : 0) << 24) | ((I1 << 23) | (I2 << 22) | (imm10 << 12) | (imm11 << 1));
            const PC = pc + 2;
            R[14] = (PC + 2) | 0x1;
            R[15] = PC + 2 + imm32;
            cyc += 2;
            core.blTaken(core, false);
            break;
          }
          default:
            { cyc = -1; break dispatch; }
        }
      }
      let stock = false;
      if (cyc < 0) {
        // left to the stock core (it takes pending exceptions, sleeps on WFE/WFI...)
        cyc = core.executeInstruction();
        stock = true;
      } else cycles += cyc;
      // clock.tick(), through the alarm list only when one is due
      const dt = cyc * cycleNs;
      const t = now + dt;
      const next = clock.nextAlarm;
      if (next !== null && next.nanos <= t) {
        clock.tick(dt);
        now = clock.nanosCounter;
      } else clock.nanosCounter = now = t;
      if (stock && core.waiting) break;
    }
    core.cycles += cycles;
    return n;
  }
  return run;
}
const POPCOUNT9 = new Uint8Array(512);
for (let i = 1; i < 512; i++) POPCOUNT9[i] = (i & 1) + POPCOUNT9[i >> 1];

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
  mcu.peripherals[0x40060] = new Rosc(mcu, 'ROSC_BASE');
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

  // 5. UART with time (PL011): see timedUart().
  mcu.uart.forEach((u, id) => timedUart(mcu, u, id));

  // 12. SPI with time: stock finished each frame the moment it left the TX FIFO, so with DMA
  // the 8-byte RX FIFO overflowed and SPI.write of 32 bytes or more never returned. A frame
  // now takes its data bits at the SPI clock (clk_peri / (CPSDVSR * (1 + SCR))); the byte
  // clocked in is the data sent in loopback mode, else 0 (MISO pulled down, nothing there).
  mcu.spi.forEach((spi) => {
    let sent = 0;
    const alarm = mcu.clock.createAlarm(() => spi.completeTransmit(spi.control1 & 1 ? sent : 0));
    spi.onTransmit = (value) => {
      sent = value;
      const hz = spi.clockFrequency;
      alarm.schedule(hz ? (spi.dataBits * 1e9) / hz : 0);
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
    if (!stalled) newlines(buf, nlOut); // (held bytes reach the host at unstall)
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

  watchEdges(c); // 14.
  mcu.core.PC = 0x10000000; // start at boot2 in flash, as the rp2040js demo does
  c.run = makeFastCore(mcu); // 9.
  chip = c;
  refreshInputs(c);
  return c;
}

// 5. The UARTs as a PL011 on the wire (stock rp2040js sent every byte at once and raised the
// TX interrupt on every check: an interrupt storm, and a UART that never makes a write wait).
// TX: bytes written to DR queue in the TX FIFO (32 deep, 1 with FIFOs off); the transmitter
// takes the next one when the line is free and it leaves after one frame (start, data bits,
// parity, stop bits) at the programmed baud rate; only then is it reported to the host. The
// flags (TXFF, TXFE, BUSY) and the TX interrupt follow: TXINTR is raised when the FIFO level
// falls to the IFLS trigger level (or empties, FIFOs off) and cleared by ICR or by filling
// above it; the TX DREQ asks for data while the FIFO has room. RX: host bytes arrive one
// frame apart (the wire's pace); one that finds the RX FIFO full is lost (overrun).
const UARTFR_BUSY = 1 << 3;
const UARTFR_TXFF = 1 << 5;
const UARTFR_TXFE = 1 << 7;
const UART_IFLS = 0x34;
const UART_OEINTR = 1 << 10;
function timedUart(mcu, u, id) {
  const clock = mcu.clock;
  const tx = [];
  let sending = false; // a frame is on the wire
  let shifting = 0; // the byte in the transmit shift register
  let ifls = 0x12; // reset value: both trigger levels at 1/2
  u.checkInterrupts = function () {
    mcu.setInterrupt(u.irq, !!(u.interruptStatus & u.interruptMask));
  };
  const txDepth = () => (u.fifosEnabled ? 32 : 1);
  const txTrigger = () => [4, 8, 16, 24, 28][ifls & 7] ?? 16;
  const frameNs = () => {
    const div = u.baudDivider;
    if (!div) return 0; // never programmed: nothing sensible to time it by
    const lcr = u.lineCtrlRegister;
    const bits = 1 + u.wordLength + (lcr & 2 ? 1 : 0) + (lcr & 8 ? 2 : 1);
    return (bits * 16 * div * 1e9) / mcu.clkPeri;
  };
  const updateDreq = () => {
    if (u.enabled && tx.length < txDepth()) mcu.dma.setDREQ(u.dreq.tx);
    else mcu.dma.clearDREQ(u.dreq.tx);
  };
  // The FIFO level fell from `before` to tx.length: raise TXINTR on reaching the trigger.
  const levelFell = (before) => {
    const hit = u.fifosEnabled
      ? before > txTrigger() && tx.length <= txTrigger()
      : tx.length === 0;
    if (hit) {
      u.interruptStatus |= UART_TXINTR;
      u.checkInterrupts();
    }
  };
  const frameDone = () => {
    sending = false;
    uartOut[id].push(shifting);
    startNext();
  };
  const txAlarm = clock.createAlarm(frameDone);
  const startNext = () => {
    if (sending || !tx.length || !u.enabled || !u.txEnabled) return;
    const before = tx.length;
    shifting = tx.shift();
    sending = true;
    levelFell(before);
    updateDreq();
    txAlarm.schedule(frameNs());
  };
  const stockRead = u.readUint32.bind(u);
  const stockWrite = u.writeUint32.bind(u);
  u.readUint32 = (offset) => {
    if (offset === 0x18) {
      // UARTFR: the RX bits from the stock FIFO, the TX bits from this one
      return (
        (stockRead(offset) & ~(UARTFR_TXFE | UARTFR_TXFF | UARTFR_BUSY)) |
        (tx.length ? 0 : UARTFR_TXFE) |
        (tx.length >= txDepth() ? UARTFR_TXFF : 0) |
        (sending || tx.length ? UARTFR_BUSY : 0)
      );
    }
    if (offset === UART_IFLS) return ifls;
    return stockRead(offset);
  };
  u.writeUint32 = (offset, value) => {
    if (offset === 0) {
      if (tx.length < txDepth()) tx.push(value & 0xff); // a full FIFO drops the write
      if (tx.length > (u.fifosEnabled ? txTrigger() : 0) && u.interruptStatus & UART_TXINTR) {
        u.interruptStatus &= ~UART_TXINTR; // filled above the trigger level
        u.checkInterrupts();
      }
      updateDreq();
      startNext();
      return;
    }
    if (offset === UART_IFLS) {
      ifls = value & 0x3f;
      return;
    }
    stockWrite(offset, value);
    if (offset === 0x30 || offset === 0x2c) {
      // UARTCR / UARTLCR_H: enabling may start a queued byte; FIFO depth may change
      updateDreq();
      startNext();
    }
  };
  // RX from the host, one frame apart (an alarm that fired still reads "scheduled": own flag).
  // As on the wire, nothing waits: a byte that comes while the UART or its receiver is off is
  // lost, and one that finds the RX FIFO full is an overrun (lost, OE raised).
  let rxPending = false;
  const rxNext = () => {
    const queue = uartIn[id];
    if (!queue.length) return;
    const b = queue.shift();
    if (u.enabled && u.rxEnabled) {
      if (!u.rxFIFO.full) u.feedByte(b);
      else {
        u.interruptStatus |= UART_OEINTR;
        u.checkInterrupts();
      }
    }
    if (queue.length) {
      rxPending = true;
      rxAlarm.schedule(Math.max(frameNs(), 1000));
    }
  };
  const rxAlarm = clock.createAlarm(() => {
    rxPending = false;
    rxNext();
  });
  u.rxKick = () => {
    if (rxPending) return;
    rxPending = true;
    rxAlarm.schedule(0);
  };
  updateDreq();
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
  const data = Buffer.concat(parts);
  newlines(data, nlIn);
  c.mcu.usbCtrl.endpointReadDone(c.cdc.outEndpoint, new Uint8Array(data));
}
function clearUsbIn() {
  usbIn.length = 0;
  usbInOff = 0;
}

// 14. Inputs watched by the chip (issue 20). An edge the world makes on a pin whose edge
// interrupt is enabled (PROC0_INTE) is "waiting" from that instant until the return from an
// IO_IRQ_BANK0 handler that left the pin's edge bits acknowledged: the firmware's hard IRQ
// (MicroPython acks, then runs the Python handler, which timestamps the edge) has taken it.
// Each edge taken is reported as {ev: "edge", pin, level, waited_ns}: the longest such wait
// is how long the inputs went unobserved, whatever the firmware's loop was doing meanwhile
// (a USB write, a garbage collection). Edges on pins with no edge interrupt are not tracked.
const IO_IRQ_BANK0_EXC = 16 + 13;
const IRQ_EDGE_BITS = 0xc; // EDGE_LOW | EDGE_HIGH of a pin's 4 interrupt bits
function watchEdges(c) {
  const core = c.mcu.core;
  c.waiting = new Map(); // pin -> [ns of the edge, level]
  const ret = core.exceptionReturn.bind(core);
  core.exceptionReturn = (excReturn) => {
    if (core.IPSR === IO_IRQ_BANK0_EXC && c.waiting.size) {
      const now = nowNs();
      for (const [n, [t, level]] of c.waiting) {
        if (c.mcu.gpio[n].irqStatus & IRQ_EDGE_BITS) continue; // not acknowledged yet
        c.waiting.delete(n);
        emit({ ev: 'edge', pin: n, level, waited_ns: now - t });
      }
    }
    ret(excReturn);
  };
}
function edgeMade(c, n, level) {
  const pin = c.mcu.gpio[n];
  // the first edge still waiting is the one that waits longest
  if (pin.irqEnableMask & IRQ_EDGE_BITS && !c.waiting.has(n)) c.waiting.set(n, [nowNs(), level]);
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
    if (level !== pin.rawInputValue) {
      pin.setInputValue(level);
      if (c.waiting && world.has(n)) edgeMade(c, n, level ? 1 : 0);
    }
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
    budget -= c.run(limitLocal, Math.min(budget, 1000), cycleNs);
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
      // Bytes for a chip that is booting (a reset, a watchdog: the parent may not have heard
      // of it yet) wait for its USB, as a real host's wait for the port to come back; no
      // chip (unplugged): they are lost.
      if (!chip) return;
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
      for (const buf of usbOutHeld) newlines(buf, nlOut);
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
// UART RX: start the paced delivery of queued host bytes (see timedUart)
function feedUart(c) {
  if (!c) return;
  c.mcu.uart.forEach((u, id) => {
    if (uartIn[id].length) u.rxKick();
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
