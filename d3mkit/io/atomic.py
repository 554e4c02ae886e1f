"""Writing files and directories so that a crash never leaves a half-written result.

What this module owns: every write d3mkit makes to a name the user will read.

* Files (:func:`write_text`, :func:`write_bytes`, :func:`atomic_path`): written into a
  temporary sibling ``.NAME.tmp-*`` and renamed over NAME, so NAME holds the complete
  old or the complete new content at every instant. NAME is never a symlink, FIFO,
  device or directory that gets followed or replaced: such a NAME is a usage error
  (exit 2) before anything is written (:func:`check_output_file`).
* Directories (:class:`StagedDir`, used for task roots and views): built in a temporary
  sibling ``.NAME.tmp-PID-*`` and swapped into place with one atomic
  ``renameat2(RENAME_EXCHANGE)`` (Linux); an existing NAME is replaced only with
  ``force``, and without ``force`` a NAME created meanwhile by a concurrent run is never
  overwritten (``RENAME_NOREPLACE``). Where renameat2 is missing (other systems, some
  file systems) the fallback renames NAME to ``.NAME.old-PID-*`` and the new tree to
  NAME; a crash between the two renames is repaired by the next run, which renames the
  old tree back.
* Leftovers: a run holds an ``flock`` on its temporary directory while it lives, so the
  next run into the same parent removes every ``.*.tmp-PID-*``/``.*.old-PID-*`` (of any
  name) that no live process holds (:func:`clean_leftovers`), and reports what it did.
* Temporary names stay short: a NAME over 100 bytes is carried as its first 40 characters
  and a digest (:func:`_stem`), so a legal 240-byte NAME never fails on its sibling; an
  error while staging names NAME, never the temporary sibling.
* Permissions: files are created ``0666 & ~umask`` and directories ``0777 & ~umask``
  (0644 and 0755 under umask 022), not the 0600/0700 of :mod:`tempfile`.

Durability: before a rename or exchange makes new content visible, the content is
flushed to the disk (``fsync`` of a file; ``syncfs`` of the file system holding a staged
tree, or an ``fsync`` of each of its files and directories where ``syncfs`` is missing),
and after it the parent directory is ``fsync``'ed so the new name itself survives. So the
promise also holds across a power loss or kernel crash on POSIX file systems that honour
``fsync`` (ext4, xfs, btrfs; not a network file system that ignores it). Setting
``D3MKIT_FSYNC=0`` turns the flushes off (scratch directories, tests on slow disks).

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> write_text(d / "a.txt", "hello\\n")
>>> (d / "a.txt").read_text(), oct((d / "a.txt").stat().st_mode & 0o777) == oct(0o666 & ~umask())
('hello\\n', True)
>>> (d / "link").symlink_to(d / "a.txt")
>>> write_text(d / "link", "x")
Traceback (most recent call last):
...
d3mkit.core.errors.UsageError: ...link: error [output.not_regular] refusing to write through a symlink...
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import re
import secrets
import shutil
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from d3mkit.core.errors import InvalidArgument, OutputExists, UsageError, relocated_error
from d3mkit.io.limits import file_kind
from d3mkit.io.readlog import own, produced, refuse_input

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2


# ------------------------------------------------------------------------------- umask
def umask() -> int:
    """The process umask (read from /proc when possible, so nothing is changed)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def file_mode() -> int:
    return 0o666 & ~umask()


def dir_mode() -> int:
    return 0o777 & ~umask()


# ------------------------------------------------------------------------------ fsync
def _durable() -> bool:
    return os.environ.get("D3MKIT_FSYNC", "1").strip() != "0"


def fsync_path(path: Path | str) -> None:
    """Flush a file or directory ``path`` to the disk (no-op with ``D3MKIT_FSYNC=0``). A file
    system that cannot fsync a directory (EINVAL, EBADF, ENOTSUP) is left as it is."""
    if not _durable():
        return
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if os.path.isdir(path) else 0))
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP, errno.EROFS):
            raise
    finally:
        os.close(fd)


def fsync_tree(root: Path | str) -> None:
    """Flush every file and directory under ``root``: one ``syncfs`` of its file system
    (Linux), else an fsync of each entry."""
    if not _durable():
        return
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        libc = _libc_handle()
        if libc and hasattr(libc, "syncfs") and libc.syncfs(fd) == 0:
            return
    finally:
        os.close(fd)
    for d, _dirs, files in os.walk(root):
        for f in files:
            fp = os.path.join(d, f)
            if not os.path.islink(fp):
                fsync_path(fp)
        fsync_path(d)


# ------------------------------------------------------------------------- output names
def _unusable(param: str | None, code: str, message: str, path) -> UsageError:
    """A refused output: an :class:`InvalidArgument` naming ``param`` ("{out} is a
    symlink"), or, for an output no parameter names, a :class:`UsageError` naming the path."""
    if param:
        return InvalidArgument(param, message, str(path), code=code)
    return UsageError(message, str(path), code=code)


def check_output_file(path: Path | str, param: str | None = None) -> Path:
    """``path`` if it may be (re)written as a regular file: it does not exist or is a
    regular file (not a symlink, FIFO, device, socket or directory), and its parent is a
    directory or can be made one. Else :class:`UsageError` (exit 2) naming ``path`` (and
    the parameter ``param`` that gave it, when there is one)."""
    p = Path(path)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _unusable(param, "output.unusable", f"cannot be checked: {exc.strerror or exc}", p) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        verb = "write through" if stat.S_ISLNK(st.st_mode) else "replace"
        raise _unusable(param, "output.not_regular",
                        f"is {file_kind(st.st_mode)}; refusing to {verb} it (give a regular file name)"
                        if param else
                        f"refusing to {verb} {file_kind(st.st_mode)}; give a regular file name", p)
    for parent in [p.parent, *p.parent.parents]:
        if os.path.lexists(parent):
            if not parent.is_dir():
                raise _unusable(param, "output.unusable", f"cannot be created: {parent} is not a directory", p)
            break
    return p


def check_output_dir(path: Path | str, param: str | None = "out") -> Path:
    """``path`` if it may hold or become a directory d3mkit writes into: it does not
    exist, or it is a directory and not a symlink. Else :class:`UsageError`."""
    p = Path(path)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return p
    except OSError as exc:
        raise _unusable(param, "output.unusable", f"cannot be checked: {exc.strerror or exc}", p) from None
    if stat.S_ISLNK(st.st_mode):
        raise _unusable(param, "output.not_regular",
                        "is a symlink; refusing to write through it (give the real directory)", p)
    if not stat.S_ISDIR(st.st_mode):
        raise _unusable(param, "output.unusable", f"exists and is {file_kind(st.st_mode)}, not a directory", p)
    return p


# ------------------------------------------------------------------------------- files
def _tmp_sibling(p: Path) -> Path:
    """``.NAME.tmp-PID-RANDOM.SUFFIX``: the suffix kept for writers that infer the format
    from it (matplotlib, Pillow, pandas compression); a long NAME is shortened
    (:func:`_stem`), so a legal name never makes an illegal temporary one."""
    suffix = p.suffix if len(p.suffix.encode()) <= 16 else ""
    return p.parent / f"{_leftover_prefixes(p.name)[0]}{os.getpid()}-{secrets.token_hex(4)}{suffix}"


@contextmanager
def atomic_path(path: Path | str) -> Iterator[Path]:
    """Yield a temporary sibling path to write; on success it is renamed over ``path``
    (mode ``0666 & ~umask``); on an exception it is removed and ``path`` is untouched."""
    p = Path(path)
    check_output_file(p)
    p.parent.mkdir(parents=True, exist_ok=True, mode=0o777)
    tmp = _tmp_sibling(p)
    try:
        yield tmp
        if not tmp.exists():
            tmp.touch()
        os.chmod(tmp, file_mode())
        fsync_path(tmp)                # the content is on the disk before the name shows it
        check_output_file(p)           # again: the name may have changed meanwhile
        refuse_input(p)                # never over a file this run read (d3mkit.io.readlog)
        os.replace(tmp, p)
        produced(p)
        fsync_path(p.parent)           # and the new name itself
    except OSError as exc:             # a full disk names the user's file, not the sibling
        moved = relocated_error(exc, tmp, p)
        if moved is exc and exc.filename is None:
            moved = OSError(exc.errno, exc.strerror or str(exc), str(p))
        if moved is not exc:
            raise moved from None
        raise
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        except IsADirectoryError:
            shutil.rmtree(tmp, ignore_errors=True)


def write_bytes(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see the module docstring)."""
    with atomic_path(path) as tmp:
        with open(tmp, "xb") as fh:
            fh.write(data)


def write_text(path: Path | str, text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends as given) to ``path`` atomically."""
    write_bytes(path, text.encode("utf-8"))


def write_with(path: Path | str, writer: Callable[[Path], None]) -> None:
    """Call ``writer(tmp_path)`` and rename the result over ``path`` atomically."""
    with atomic_path(path) as tmp:
        writer(tmp)


# ------------------------------------------------------------------------------ copies
def copy_file(src: Path | str, dst: Path | str, *, what: str = "media file") -> None:
    """Copy the bytes of ``src`` (untrusted: a regular file within ``D3MKIT_MAX_FILE_BYTES``,
    :func:`d3mkit.io.limits.open_regular`) to a new or replaced ``dst`` with mode
    ``0666 & ~umask``: the source's mode (0o777, setuid, ...) never carries over, and ``dst``
    is never written through a symlink. Used for media copied into a task root or a view.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "s").write_text("x"); (d / "s").chmod(0o4777)
    >>> copy_file(d / "s", d / "t"); (d / "t").read_text(), (d / "t").stat().st_mode & 0o7777 == file_mode()
    ('x', True)
    """
    from d3mkit.io.limits import open_regular
    with open_regular(src, what) as fin:
        fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o666)
        with os.fdopen(fd, "wb") as fout:
            os.fchmod(fd, file_mode())
            shutil.copyfileobj(fin, fout, 1 << 20)


def copy_tree(src: Path | str, dst: Path | str, *, symlinks: bool = False, what: str = "media file") -> None:
    """Copy directory ``src`` to ``dst`` (made, or merged into) with :func:`copy_file` for
    every file and ``0777 & ~umask`` directories. A symlink is followed (``symlinks=False``;
    the caller has checked where it leads, :func:`d3mkit.io.paths.walk_files`) or recreated as a
    symlink (``symlinks=True``, nothing behind it is read). A directory symlink that loops
    back to a directory being copied is an error naming it."""
    from d3mkit.core.errors import D3MKitError, error
    stack: list[str] = []

    def walk(s: Path, d: Path) -> None:
        real = os.path.realpath(s)
        if real in stack:
            raise D3MKitError(error("file.unreadable", "", "a directory symlink loops back to "
                                    f"{real}; refusing to copy it", str(s)))
        stack.append(real)
        os.makedirs(d, mode=0o777, exist_ok=True)
        for e in sorted(os.scandir(s), key=lambda e: e.name):
            target = d / e.name
            if symlinks and e.is_symlink():
                os.symlink(os.readlink(e.path), target)
            elif e.is_dir():
                walk(Path(e.path), target)
            else:
                copy_file(e.path, target, what=what)
        stack.pop()

    walk(Path(src), Path(dst))


# ------------------------------------------------------------------------- directories
_libc = None


def _libc_handle():
    """The C library (for renameat2 and syncfs), or False where it cannot be loaded."""
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(None, use_errno=True)
        except OSError:
            _libc = False
    return _libc


def _renameat2(src: Path, dst: Path, flags: int) -> bool:
    """rename with ``flags``; True when done, False when the system lacks renameat2 or
    the file system does not support the flag. Other errors raise OSError."""
    libc = _libc_handle()
    if libc is False or not hasattr(libc, "renameat2"):     # glibc < 2.28
        return False
    r = libc.renameat2(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags)
    if r == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(src), None, str(dst))


_STEM_BYTES = 100       # a temporary name stays far below NAME_MAX (255 bytes) whatever NAME is


def _stem(name: str) -> str:
    """``name``, or for a name over :data:`_STEM_BYTES` bytes its first 40 characters and
    a digest of the whole (``~`` and 12 hex digits): the part temporary siblings carry.

    >>> _stem("wine"), len(_stem("x" * 240)), _stem("x" * 240) != _stem("x" * 239 + "y")
    ('wine', 53, True)
    """
    if len(name.encode("utf-8", "surrogateescape")) <= _STEM_BYTES:
        return name
    import hashlib
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{name[:40]}~{digest}"


def _leftover_prefixes(name: str) -> tuple[str, str]:
    stem = _stem(name)
    return f".{stem}.tmp-", f".{stem}.old-"


_LEFTOVER = re.compile(r"^\.(?P<stem>.+)\.(?P<kind>tmp|old)-(?P<pid>\d+)-[0-9a-f]{8}(?:\.[^.]*)?$", re.S)


def _try_lock(path: Path) -> int | None:
    """An fd holding an exclusive flock on directory ``path``, or None if a live
    process holds it (or it cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _alive(entry: str, prefix: str) -> bool:
    """The run that made ``entry`` (``PREFIX<pid>-...``) is still alive. Names without a
    pid (older d3mkit versions) count as dead; a reused pid only delays the cleanup."""
    pid = entry[len(prefix):].split("-", 1)[0]
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def _named(parent: Path, stem: str) -> Path | None:
    """The name a temporary's ``stem`` stands for, or None for a shortened one."""
    shortened = re.fullmatch(r".{40}~[0-9a-f]{12}", stem, re.S) is not None
    return None if shortened else parent / stem


def clean_leftovers(parent: Path | str, name: str) -> list[str]:
    """Repair and remove what killed runs left in ``parent`` (beside ``parent/name`` and
    beside any other name: every dead run's temporary file or tree); return one line per
    action. A temporary of a live run (its pid is alive, or it holds the directory's
    flock) is left alone; an old tree whose name is missing is put back where its name can
    be told (a shortened name cannot: that tree is left for the run of its own name)."""
    parent = Path(parent)
    own = _leftover_prefixes(name)
    mine = _stem(name)
    try:
        entries = sorted(e for e in os.listdir(parent) if e.startswith(own) or _LEFTOVER.match(e))
    except OSError:
        return []
    done: list[str] = []
    for e in entries:
        p = parent / e
        if e.startswith(own):          # NAME's own (also the pid-less names of older versions)
            stem, kind = mine, ("tmp" if e.startswith(own[0]) else "old")
        else:
            m = _LEFTOVER.match(e)
            stem, kind = m.group("stem"), m.group("kind")
        if p.is_symlink() or _alive(e, f".{stem}.{kind}-"):
            continue
        if not p.is_dir():
            if kind == "tmp" and p.is_file():       # a file a killed run was writing
                try:
                    os.unlink(p)
                    done.append(f"removed {p} (left by a run that was killed)")
                except OSError:
                    pass
            continue
        dest = parent / name if stem == mine else _named(parent, stem)
        if kind == "old" and dest is None:
            continue
        fd = _try_lock(p)
        if fd is None:
            continue
        try:
            if kind == "old" and not os.path.lexists(dest):
                # the fallback protocol was killed between its two renames: put the old tree back
                try:
                    os.rename(p, dest)
                    done.append(f"restored {dest} from {p} (a run was killed while replacing it)")
                    continue
                except OSError:
                    pass
            shutil.rmtree(p, ignore_errors=True)
            done.append(f"removed {p} (left by a run that was killed)")
        finally:
            os.close(fd)
    return done


class StagedDir:
    """Build directory ``dest`` in a locked temporary sibling and put it in place
    atomically (see the module docstring).

    >>> import tempfile, pathlib
    >>> parent = pathlib.Path(tempfile.mkdtemp())
    >>> with StagedDir(parent / "root") as tmp:
    ...     _ = (tmp / "f.txt").write_text("new")
    >>> (parent / "root" / "f.txt").read_text(), sorted(p.name for p in parent.iterdir())
    ('new', ['root'])
    """

    def __init__(self, dest: Path | str, *, force: bool = False, param: str = "out", durable: bool = True):
        self.dest = Path(dest)
        self.force = force
        self.durable = durable         # False: a scratch tree, not flushed to the disk
        self.param = param
        self.tmp: Path | None = None
        self.staged: Path | None = None     # the temporary name, for messages
        self.notes: list[str] = []
        self._fd: int | None = None
        self._old_fd: int | None = None
        self._own = None

    def __enter__(self) -> Path:
        dest = self.dest
        if os.path.lexists(dest):
            if stat.S_ISLNK(os.lstat(dest).st_mode):
                raise UsageError(f"{dest} is a symlink; refusing to replace it", str(dest),
                                 code="output.not_regular")
            if not dest.is_dir():
                raise UsageError(f"{dest} exists and is not a directory", str(dest), code="output.unusable")
        dest.parent.mkdir(parents=True, exist_ok=True)
        self.notes = clean_leftovers(dest.parent, dest.name)
        if os.path.lexists(dest) and not self.force:
            raise OutputExists(dest, self.param)
        tmp = dest.parent / f"{_leftover_prefixes(dest.name)[0]}{os.getpid()}-{secrets.token_hex(4)}"
        try:
            os.mkdir(tmp, 0o700)
        except OSError as exc:         # a read-only file system names the user's directory
            raise relocated_error(exc, tmp, dest) from None
        self._fd = _try_lock(tmp)
        os.chmod(tmp, dir_mode())
        self.tmp = self.staged = tmp
        self._own = own(tmp)           # what is read back from the tree is not an input
        self._own.__enter__()
        return tmp

    def __exit__(self, exc_type, exc, tb) -> bool:
        """Commit (no exception) and clean up; an error raised while building or committing
        names ``dest``, not the temporary sibling (:func:`d3mkit.core.errors.relocated_error`)."""
        failed = None
        if self._own is not None:
            self._own.__exit__(None, None, None)
            self._own = None
        try:
            if exc_type is None:
                self.commit()
        except BaseException as err:
            failed = err
        finally:
            if self.tmp is not None:
                shutil.rmtree(self.tmp, ignore_errors=True)
            for fd in (self._fd, self._old_fd):
                if fd is not None:
                    os.close(fd)
            self._fd = self._old_fd = None
        err = failed if failed is not None else exc
        if err is not None:
            moved = relocated_error(err, self.staged, self.dest) if self.staged is not None else err
            if moved is not err:
                raise moved from None
            if failed is not None:
                raise failed
        return False

    def commit(self) -> None:
        """Put the temporary tree at ``dest``: a new name atomically; an existing one
        (``force``) swapped atomically, its old tree left at the temporary name and
        removed by :meth:`__exit__` (or by the next run if this one is killed). The tree
        is flushed to the disk first and the parent directory after (see the module
        docstring), unless it was made with ``durable=False`` (a scratch tree: a system's
        sandbox, deleted within seconds)."""
        assert self.tmp is not None
        refuse_input(self.dest)        # never over a tree holding a file this run read
        if self.durable:
            fsync_tree(self.tmp)
        self._put_in_place()
        produced(self.dest)
        if self.durable:
            fsync_path(self.dest.parent)

    def _put_in_place(self) -> None:
        tmp, dest = self.tmp, self.dest
        while True:
            if not os.path.lexists(dest):
                try:
                    if _renameat2(tmp, dest, _RENAME_NOREPLACE) or (
                            not os.path.lexists(dest) and os.rename(tmp, dest) is None):
                        # (the plain rename fails on a non-empty directory made meanwhile)
                        self.tmp = None
                        return
                except OSError as exc:
                    if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                        raise               # else: another run created dest meanwhile
            if not self.force:
                raise OutputExists(dest, self.param, detail="already exists (another run wrote it meanwhile)")
            if stat.S_ISLNK(os.lstat(dest).st_mode) or not dest.is_dir():
                raise UsageError(f"{dest} is no longer a directory; refusing to replace it", str(dest),
                                 code="output.not_regular")
            try:
                if _renameat2(tmp, dest, _RENAME_EXCHANGE):
                    return                      # tmp now holds the old tree; __exit__ removes it
            except FileNotFoundError:
                continue                        # dest vanished meanwhile: try the plain rename
            self._fallback_replace()
            return

    def _fallback_replace(self) -> None:
        """Two renames; a crash between them is repaired by :func:`clean_leftovers`."""
        assert self.tmp is not None
        old = self.dest.parent / f"{_leftover_prefixes(self.dest.name)[1]}{os.getpid()}-{secrets.token_hex(4)}"
        self._old_fd = _try_lock(self.dest)   # no other run repairs it while we hold it
        os.rename(self.dest, old)
        os.rename(self.tmp, self.dest)
        self.tmp = old
