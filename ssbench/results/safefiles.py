"""Output files that never destroy what the user did not ask us to replace.

Every path ssbench writes is checked before a run starts (so a bad path
fails before containers are created), reports are written to a temporary
file beside their target and renamed into place, and the stats file may
only replace a file that is itself an ssbench stats file (or, with
--force, any regular file).  A non-regular file (a device, a FIFO, a
directory) is never truncated, replaced or deleted.
"""
from __future__ import absolute_import, division, print_function

import contextlib
import errno
import io
import os
import stat
import tempfile

from ssbench.compat import PY2, makedirs
from ssbench.errors import SsbenchError, UsageError
from ssbench.measure.record import HEADER_KEY

#: The output path that names standard output.
STDOUT = '-'
# Stats files start with this (plain) or are gzip; see looks_like_stats().
_GZIP_MAGIC = b'\x1f\x8b'
_HEADER_KEY = HEADER_KEY.encode('ascii')
# Bytes of a file's start searched for the header key.
_SNIFF_BYTES = 1 << 16


def _stat(path, follow=True):
    """os.stat (through symbolic links: None for a dangling one), or
    os.lstat without `follow`; None when nothing is there."""
    missing = (errno.ENOENT, errno.ENOTDIR) + ((errno.ELOOP,) if follow
                                               else ())
    try:
        return os.stat(path) if follow else os.lstat(path)
    except OSError as exc:
        if exc.errno in missing:
            return None
        raise UsageError('%s: %s' % (path, exc.strerror))


def looks_like_stats(path):
    """True when `path` is a regular file holding an ssbench stats header
    (plain or gzip), or is empty (nothing to lose)."""
    import zlib
    try:
        with io.open(path, 'rb') as fp:
            head = fp.read(_SNIFF_BYTES)
    except (IOError, OSError):
        return False
    if not head:
        return True
    if head[:2] == _GZIP_MAGIC:
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(
                head, _SNIFF_BYTES)
        except zlib.error:
            return False
    # The header is the stream's first object: a map (0x80-0x8f, 0xde,
    # 0xdf) whose keys include _scenario_data.
    return head[:1] in _MAP_TAGS and _HEADER_KEY in head


_MAP_TAGS = frozenset(bytes(bytearray([tag]))
                      for tag in list(range(0x80, 0x90)) + [0xde, 0xdf])


def check_path_syntax(path, what):
    """Refuse paths no file system accepts, with a line naming `what`."""
    if not path:
        raise UsageError('%s: empty path' % (what,))
    if '\0' in path:
        raise UsageError('%s %r: a path cannot contain a NUL character'
                         % (what, path))
    name = os.path.basename(path)
    parent = os.path.dirname(path) or '.'
    try:
        limit = os.pathconf(parent, 'PC_NAME_MAX')
    except (OSError, ValueError):
        limit = 255
    if not isinstance(name, bytes):
        name = name.encode('utf-8', 'surrogateescape' if not PY2 else
                           'strict')
    # Our temporary names add up to 24 characters to the file name.
    if len(name) + 24 > limit:
        raise UsageError('%s %s: file name too long (%d bytes at most)'
                         % (what, path, limit - 24))


def check_directory(path, what, create=False):
    """The directory of `path` exists (or is created) and is writable."""
    parent = os.path.dirname(os.path.abspath(path))
    if create and not os.path.isdir(parent):
        try:
            makedirs(parent)
        except OSError as exc:
            raise UsageError('%s %s: cannot create directory %s: %s' % (
                what, path, parent, exc.strerror))
    if not os.path.isdir(parent):
        raise UsageError('%s %s: no such directory: %s' % (
            what, path, parent))
    # Probing with a real file catches read-only mounts, which access()
    # does not see for root.
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix='.ssbench-probe-')
    except (IOError, OSError) as exc:
        raise UsageError('%s %s: cannot write in %s: %s' % (
            what, path, parent, exc.strerror or exc))
    os.close(fd)
    os.unlink(probe)


class StatsPaths(object):
    """Where a run's stats go: `plain` during the run, `final` (gzip) after.

    A path ending in ``.gz`` is the final file itself (its plain twin is
    the path without ``.gz``); any other path P gives P.gz, as in 0.3.9.
    """

    def __init__(self, path):
        if path.endswith('.gz'):
            self.plain, self.final = path[:-3], path
        else:
            self.plain, self.final = path, path + '.gz'

    def check(self, force=False):
        """Refuse, before anything runs, paths the run could not write or
        files it must not replace.  Creates the directory if needed."""
        what = 'stats file'
        for path in (self.plain, self.final):
            check_path_syntax(path, what)
        if not os.path.basename(self.plain):
            raise UsageError('%s %s: names no file' % (what, self.final))
        for path in (self.plain, self.final):
            info = _stat(path, follow=False)
            if info is None:
                continue
            if not stat.S_ISREG(info.st_mode):
                raise UsageError('%s %s: exists and is not a regular file; '
                                 'choose another path' % (what, path))
            if not force and not looks_like_stats(path):
                raise UsageError('%s %s: exists and is not an ssbench stats '
                                 'file; choose another path or give --force'
                                 ' to replace it' % (what, path))
        check_directory(self.plain, what, create=True)
        return self


def _same_place(path, other):
    """True when two paths name one file, or would once created (the same
    path once symbolic links are resolved, or the same inode)."""
    if os.path.realpath(path) == os.path.realpath(other):
        return True
    try:
        a, b = os.stat(path), os.stat(other)
    except (OSError, ValueError):
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def refuse_overwriting_inputs(outputs, inputs):
    """Each output names neither an input nor another output.

    `outputs` and `inputs` are (what, path) pairs; two outputs of the same
    `what` (the stats file's plain and gzip paths) are one output."""
    named = [(what, path) for what, path in outputs if path]
    for i, (what, path) in enumerate(named):
        for in_what, in_path in inputs:
            if in_path and _same_place(path, in_path):
                raise UsageError('%s %s is the %s: refusing to overwrite '
                                 'it' % (what, path, in_what))
        for other_what, other in named[:i]:
            if other_what == what or _is_device(path):
                continue    # two outputs to /dev/null or a terminal: fine
            if _same_place(path, other):
                raise UsageError('%s and %s are the same file: %s' % (
                    other_what, what, path))


def _is_device(path):
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def check_output(path, what, force=False):
    """An output path we may write: a new file in a writable directory,
    an existing regular file (or a symbolic link, even to nothing) only
    with `force`, or an existing non-regular file (a terminal, /dev/null,
    a FIFO), which is written in place and so replaces nothing."""
    check_path_syntax(path, what)
    info = _stat(path, follow=False)
    if info is None:
        check_directory(path, what)
        return
    target = _stat(path)
    if target is not None and stat.S_ISDIR(target.st_mode):
        raise UsageError('%s %s: is a directory' % (what, path))
    if target is not None and not stat.S_ISREG(target.st_mode):
        return
    if not force:
        kind = 'exists'
        if stat.S_ISLNK(info.st_mode):
            kind = 'exists (a symbolic link to %s)' % (os.readlink(path),)
        raise UsageError('%s %s: %s; choose another path or give --force '
                         'to replace it' % (what, path, kind))
    check_directory(os.path.realpath(path), what)


def _new_file_mode():
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def atomic_output(path, what, mode='w'):
    """Open `path` for writing through a temporary file renamed into place
    on success; on failure the target is untouched and the temporary file
    removed.  An existing non-regular file (through links: /dev/stdout)
    is written in place instead.  A write that fails (a full disk) raises
    SsbenchError naming `what` and `path`.

    `mode`: 'w' (text: native str on 2, UTF-8 on 3), 'csv' (what
    csv.writer wants on each Python) or 'wb'.
    """
    try:
        info = _stat(path)
        if info is not None and not stat.S_ISREG(info.st_mode):
            with _open_stream(path, mode, what) as stream:
                yield stream
            return
        with _replacing(os.path.realpath(path), info, mode, what) as stream:
            yield stream
    except (IOError, OSError) as exc:
        raise SsbenchError('cannot write %s %s: %s' % (
            what, path, exc.strerror or exc))


@contextlib.contextmanager
def _replacing(target, info, mode, what):
    """A stream on a temporary file beside `target`, renamed onto it at
    the end; removed on failure."""
    directory = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix='.%s.' % (
        os.path.basename(target)[:200],), suffix='.tmp')
    os.close(fd)
    try:
        with _open_stream(tmp, mode, what) as stream:
            yield stream
        os.chmod(tmp, stat.S_IMODE(info.st_mode) if info is not None
                 else _new_file_mode())
        os.rename(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _open_stream(path, mode, what):
    from ssbench.compat import open_csv, open_text_out
    try:
        if mode == 'csv':
            return open_csv(path)
        if mode == 'wb':
            return io.open(path, 'wb')
        return open_text_out(path)
    except (IOError, OSError) as exc:
        raise UsageError('cannot write %s %s: %s' % (
            what, path, exc.strerror or exc))


def save_profile(profiler, path, what='profile'):
    """Write a cProfile.Profile's statistics to `path` (checked with
    check_output before the run) through a temporary file and a rename,
    as its dump_stats() would write them in place."""
    import marshal
    profiler.create_stats()
    data = marshal.dumps(profiler.stats)
    with atomic_output(path, what, 'wb') as out:
        out.write(data)


def private_directory(prefix):
    """A fresh directory only this user can enter (for logs, profiles)."""
    return tempfile.mkdtemp(prefix=prefix)


def create_new(path):
    """Open a new file for binary writing; refuses existing files and
    symbolic links (so a planted link can't redirect our writes)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(
        os, 'O_NOFOLLOW', 0)
    return io.open(os.open(path, flags, 0o644), 'wb')
