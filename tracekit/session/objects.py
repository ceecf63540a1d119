"""Open the tracer's BPF object from its load image kept in the per-boot cache
(``tracekit.kernel.bootcache``), or from the ELF, building the image for next time.

The image is keyed by the boot, the kernel build, tracekit's version, the object file's
SHA-256 and the loader code that built it: a rebuilt object, another kernel or an edited
loader all make it stale. A load from the image reads no ELF and no BTF: the verifier
still checks every prog at BPF_PROG_LOAD, as on the first start.
"""

from __future__ import annotations

import hashlib
from importlib.abc import Traversable
from pathlib import Path

from tracekit._errors import ElfError
from tracekit.bpf.image import ObjectImage
from tracekit.bpf.object import BpfObject
from tracekit.kernel import bootcache

__all__ = ["IMAGE_CODE", "image_key", "open_object"]

#: the modules whose code makes an image (tracekit/<path>): editing one makes entries stale
IMAGE_CODE = ("bpf/object.py", "bpf/image.py", "bpf/elf.py", "bpf/btf.py", "bpf/relo_core.py",
              "kernel/bootcache.py")


def image_key(data: bytes) -> dict[str, str]:
    """The cache key of the image of the object whose bytes are ``data``."""
    return {**bootcache.boot_key(), "object": hashlib.sha256(data).hexdigest(),
            "code": bootcache.code_stamp(*IMAGE_CODE)}


def open_object(source: Traversable | Path, name: str, *, cache: bool = True,
                directory: Path | None = None) -> BpfObject:
    """The object at ``source``, ready to set its globals and load.

    Args:
      source: the ``.bpf.o`` (``tracekit.session.session.object_path()``).
      name: the cache entry's name (``syscalls-x86_64``).
      cache: False: read the ELF and build the image, touching no cache.
      directory: the cache directory (default ``bootcache.cache_dir()``).

    Raises:
      ElfError: the object cannot be read or is malformed.
      BtfError, AttachError: the image cannot be built for this kernel (a CO-RE
        relocation that cannot be resolved, a tracepoint the kernel lacks).
    """
    try:
        data = source.read_bytes()
    except OSError as e:
        raise ElfError(f"cannot read: {e.strerror}", path=str(source)) from e
    if cache:
        key = image_key(data)
        image = bootcache.load(name, key, ObjectImage, directory=directory)
        if image is not None:
            return BpfObject.from_image(image, str(source))
    obj = BpfObject.open(data)
    obj.path = str(source)
    image = obj.image = obj.build_image()
    if cache:
        bootcache.store(name, key, image, directory=directory)
    return obj
