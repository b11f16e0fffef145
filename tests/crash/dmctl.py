# SPDX-License-Identifier: GPL-2.0
"""Device-mapper control through its ioctls (include/uapi/linux/dm-ioctl.h).

Under TCG an exec of dmsetup costs about half a second, and the writers set
a dm-log-writes mark after every operation and the replay creates and
removes a snapshot at every point: both talk to /dev/mapper/control
directly.  Only what the crash tests need: single-target tables, create,
load, suspend/resume, remove, target messages.  A device is used
through /dev/dm-<minor> (devtmpfs makes it; there is no udev in the VM).
"""
import errno
import fcntl
import os
import struct

# struct dm_ioctl: version[3], data_size, data_start, target_count,
# open_count, flags, event_nr, padding, dev, name[128], uuid[129], data[7]
_HDR = struct.Struct("=3IIIIiIIIQ128s129s7s")
assert _HDR.size == 312
# struct dm_target_spec: sector_start, length, status, next, target_type[16]
_SPEC = struct.Struct("=QQiI16s")
_MSG = struct.Struct("=Q")  # struct dm_target_msg: sector, message[]

_CMD = {"create": 3, "remove": 4, "suspend": 6, "status_dev": 7, "load": 9,
        "message": 14}
SUSPEND_FLAG = 1 << 1
SKIP_LOCKFS_FLAG = 1 << 10


def _ioc(nr):
    # _IOWR(DM_IOCTL = 0xfd, nr, struct dm_ioctl)
    return (3 << 30) | (_HDR.size << 16) | (0xfd << 8) | nr


class DMError(OSError):
    pass


def _call(cmd, name, flags=0, payload=b"", target_count=0):
    size = _HDR.size + len(payload)
    hdr = _HDR.pack(4, 0, 0, size, _HDR.size, target_count, 0, flags, 0, 0, 0,
                    name.encode(), b"", b"")
    buf = bytearray(hdr + payload.ljust(size - _HDR.size, b"\0"))
    fd = os.open("/dev/mapper/control", os.O_RDWR)
    try:
        fcntl.ioctl(fd, _ioc(_CMD[cmd]), buf, True)
    except OSError as e:
        raise DMError(e.errno, "dm %s %s: %s" % (cmd, name, os.strerror(e.errno)))
    finally:
        os.close(fd)
    return buf


def _fields(buf):
    f = _HDR.unpack_from(buf)
    return {"data_size": f[3], "data_start": f[4], "target_count": f[5],
            "open_count": f[6], "flags": f[7], "dev": f[10]}


def node(name):
    """/dev/dm-<minor> of NAME, from DM_DEV_STATUS (checked against
    sysfs: a wrong node would be another device)"""
    dev = _fields(_call("status_dev", name))["dev"]
    # huge_encode_dev(): minor is (dev & 0xff) | ((dev >> 12) & 0xfff00)
    minor = (dev & 0xff) | ((dev >> 12) & 0xfff00)
    with open("/sys/block/dm-%d/dm/name" % minor) as f:
        if f.read().strip() != name:
            raise DMError(errno.ENODEV, "dm %s: /dev/dm-%d is another device" % (name, minor))
    return "/dev/dm-%d" % minor


def load(name, length, target, params, start=0):
    """Load a single-target table into the inactive slot of NAME."""
    p = params.encode() + b"\0"
    p += b"\0" * (-(len(p)) % 8)
    spec = _SPEC.pack(start, length, 0, _SPEC.size + len(p), target.encode())
    _call("load", name, payload=spec + p, target_count=1)


def resume(name):
    """Make the loaded table live (the device is resumed)."""
    _call("suspend", name)
    return node(name)


def suspend(name, lockfs=False):
    """Suspend NAME; without lockfs the file system on it is not frozen
    (nothing is synced first: a power cut, not a clean switch)."""
    _call("suspend", name, SUSPEND_FLAG | (0 if lockfs else SKIP_LOCKFS_FLAG))


def create(name, length, target, params):
    """dmsetup create NAME --table '0 LENGTH TARGET PARAMS'; returns the node."""
    _call("create", name)
    try:
        load(name, length, target, params)
        return resume(name)
    except OSError:
        remove(name)
        raise


def reload(name, length, target, params):
    """Swap the table of a live device without freezing its file system."""
    load(name, length, target, params)
    suspend(name)
    return resume(name)


def remove(name):
    _call("remove", name)


def message(name, text, sector=0):
    """dmsetup message NAME SECTOR TEXT"""
    _call("message", name, payload=_MSG.pack(sector) + text.encode() + b"\0")


def sectors(dev):
    """Size of a block device in 512-byte sectors."""
    fd = os.open(dev, os.O_RDONLY)
    try:
        return os.lseek(fd, 0, os.SEEK_END) // 512
    finally:
        os.close(fd)
