# NXP MFRC522 over SPI, at register level: the ``pcd`` seam of iso14443a.py for one reader.
#
# Portable: the SPI bus, the chip-select function and the sleep function are injected, so this
# file never imports ``machine``. One Rc522 object serves every reader of the board: main.py
# points the chip-select decoder at an antenna, and this object then talks to that reader.
# Register numbers and bits: MFRC522 data sheet (NXP, rev. 3.9), sections 9.2-9.3.
#
# Not verified on hardware in this repository (there is none in CI): see the hardware doc's
# bring-up checklist, in particular the CollReg position under RxAlign.

from . import iso14443a as iso

CommandReg = 0x01
ComIrqReg = 0x04
DivIrqReg = 0x05
ErrorReg = 0x06
FIFODataReg = 0x09
FIFOLevelReg = 0x0A
ControlReg = 0x0C
BitFramingReg = 0x0D
CollReg = 0x0E
ModeReg = 0x11
TxModeReg = 0x12
RxModeReg = 0x13
TxControlReg = 0x14
TxASKReg = 0x15
ModWidthReg = 0x24
RFCfgReg = 0x26
TModeReg = 0x2A
TPrescalerReg = 0x2B
TReloadRegH = 0x2C
TReloadRegL = 0x2D
VersionReg = 0x37

CMD_IDLE = 0x00
CMD_TRANSCEIVE = 0x0C
CMD_SOFT_RESET = 0x0F
POWER_DOWN = 0x10

# 0x91/0x92: NXP MFRC522 v1/v2; 0x88: Fudan FM17522 clone; 0x12: common counterfeit. All speak
# the same register set for what we use.
KNOWN_VERSIONS = (0x91, 0x92, 0x88, 0x12)


class Rc522:
    def __init__(self, spi, chip_select, sleep_ms, timeout_polls=200, rx_gain=0x70):
        self.spi = spi
        self.cs = chip_select          # cs(True) selects the addressed reader, cs(False) releases
        self.sleep_ms = sleep_ms
        self.timeout_polls = timeout_polls
        self.rx_gain = rx_gain
        self._one = bytearray(2)
        self._rx = bytearray(2)

    # ---- registers ----

    def write_reg(self, reg, value):
        b = self._one
        b[0] = (reg << 1) & 0x7E
        b[1] = value & 0xFF
        self.cs(True)
        try:
            self.spi.write(b)
        finally:
            self.cs(False)

    def read_reg(self, reg):
        b = self._one
        b[0] = ((reg << 1) & 0x7E) | 0x80
        b[1] = 0
        self.cs(True)
        try:
            self.spi.write_readinto(b, self._rx)
        finally:
            self.cs(False)
        return self._rx[1]

    def set_bits(self, reg, mask):
        self.write_reg(reg, self.read_reg(reg) | mask)

    def clear_bits(self, reg, mask):
        self.write_reg(reg, self.read_reg(reg) & (~mask & 0xFF))

    # ---- life cycle ----

    def version(self):
        return self.read_reg(VersionReg)

    def alive(self):
        return self.version() in KNOWN_VERSIONS

    def init(self):
        """Reset and configure the addressed reader; leave it powered down with the field off."""
        self.write_reg(CommandReg, CMD_SOFT_RESET)
        for _ in range(self.timeout_polls):
            self.sleep_ms(1)
            if not self.read_reg(CommandReg) & POWER_DOWN:
                break
        else:
            return False
        if not self.alive():
            return False
        self.write_reg(TxModeReg, 0x00)
        self.write_reg(RxModeReg, 0x00)
        self.write_reg(ModWidthReg, 0x26)
        # Timer: TAuto, prescaler 0xA9 -> 25 us per tick; reload 40 -> a 1 ms reply timeout. A REQA
        # answer comes after ~90 us, so an empty field costs 1 ms instead of the usual 25 ms.
        self.write_reg(TModeReg, 0x80)
        self.write_reg(TPrescalerReg, 0xA9)
        self.write_reg(TReloadRegH, 0x00)
        self.write_reg(TReloadRegL, 40)
        self.write_reg(TxASKReg, 0x40)      # 100 % ASK
        self.write_reg(ModeReg, 0x3D)       # CRC preset 0x6363 (not used: CRC_A is computed in software)
        self.write_reg(RFCfgReg, self.rx_gain)
        self.clear_bits(CollReg, 0x80)      # ValuesAfterColl = 0: bits after a collision read as 0
        self.field(False)
        self.power_down()
        return True

    def power_down(self):
        self.write_reg(CommandReg, POWER_DOWN)

    def wake(self):
        self.write_reg(CommandReg, CMD_IDLE)
        for _ in range(self.timeout_polls):
            if not self.read_reg(CommandReg) & POWER_DOWN:
                return True
            self.sleep_ms(1)
        return False

    def field(self, on):
        if on:
            self.set_bits(TxControlReg, 0x03)
        else:
            self.clear_bits(TxControlReg, 0x03)

    # ---- the iso14443a seam ----

    def transceive(self, data, tx_last_bits=0, rx_align=0):
        self.write_reg(CommandReg, CMD_IDLE)
        self.write_reg(ComIrqReg, 0x7F)
        self.write_reg(FIFOLevelReg, 0x80)
        for b in data:
            self.write_reg(FIFODataReg, b)
        self.write_reg(BitFramingReg, ((rx_align & 7) << 4) | (tx_last_bits & 7))
        self.write_reg(CommandReg, CMD_TRANSCEIVE)
        self.set_bits(BitFramingReg, 0x80)          # StartSend
        irq = 0
        for _ in range(self.timeout_polls):
            irq = self.read_reg(ComIrqReg)
            if irq & 0x30:                          # RxIRq or IdleIRq: done
                break
            if irq & 0x01:                          # TimerIRq: nobody answered
                self.clear_bits(BitFramingReg, 0x80)
                return (iso.ST_TIMEOUT, b"", 0, 0)
        else:
            # The chip never finished: the reader is not working, not merely without tags.
            self.clear_bits(BitFramingReg, 0x80)
            return (iso.ST_ERROR, b"", 0, 0)
        self.clear_bits(BitFramingReg, 0x80)
        err = self.read_reg(ErrorReg)
        if err & 0x13:                              # BufferOvfl, ParityErr, ProtocolErr
            return (iso.ST_ERROR, b"", 0, 0)
        n = self.read_reg(FIFOLevelReg) & 0x7F
        resp = bytearray(n)
        for i in range(n):
            resp[i] = self.read_reg(FIFODataReg)
        if n and rx_align:
            resp[0] &= (0xFF << rx_align) & 0xFF
        last_bits = self.read_reg(ControlReg) & 0x07
        if err & 0x08:                              # CollErr
            coll = self.read_reg(CollReg)
            if coll & 0x20:                         # CollPosNotValid
                return (iso.ST_ERROR, b"", 0, 0)
            pos = coll & 0x1F or 32
            # CollPos counts from bit 0 of the first FIFO byte; the seam counts received bits.
            return (iso.ST_COLLISION, bytes(resp), last_bits, pos - rx_align)
        return (iso.ST_OK, bytes(resp), last_bits, 0)


class Rc522Array:
    """All the readers of the board behind one chip-select decoder: ``read(antenna) -> [uid]``."""

    def __init__(self, rc522, address, antennas, max_tags, settle_ms=5, reader_error=Exception):
        self.pcd = rc522
        self.address = address         # address(antenna): point the decoder at that reader
        self.antennas = antennas
        self.max_tags = max_tags
        self.settle_ms = settle_ms     # ISO/IEC 14443-3: unmodulated field before the first command
        self.reader_error = reader_error
        self.ready = [False] * antennas

    def read(self, antenna):
        pcd = self.pcd
        self.address(antenna)
        if not self.ready[antenna]:
            if not pcd.init():
                raise self.reader_error("reader %d: no MFRC522 answers" % antenna)
            self.ready[antenna] = True
        if not pcd.wake():
            self.ready[antenna] = False
            raise self.reader_error("reader %d: does not wake up" % antenna)
        try:
            pcd.field(True)
            self.sleep(self.settle_ms)
            uids = iso.inventory(pcd, self.max_tags)
        finally:
            pcd.field(False)
            pcd.power_down()
        if not uids and not pcd.alive():
            self.ready[antenna] = False
            raise self.reader_error("reader %d: lost" % antenna)
        return uids

    def sleep(self, ms):
        self.pcd.sleep_ms(ms)
