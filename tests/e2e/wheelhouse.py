"""A wheelhouse of this checkout for hosts without a package index.

ssbench itself is built into a wheel from a copy of the tree (so no
build/ folder appears in the checkout); its dependencies are packed back
into wheels from this interpreter's own installed distributions (the files
their RECORD lists, with their .dist-info), so `pip install --no-index
--find-links DIR ssbench` works offline on an interpreter of the same
version.  Python 3.8+ (importlib.metadata, packaging).
"""
from __future__ import absolute_import, division, print_function

import glob
import os
import shutil
import sys
import zipfile

from tests.e2e import support

TREE_FILES = ('setup.py', 'README.rst', 'LICENSE', 'AUTHORS')


def _wheel_tag(dist):
    """The first Tag: line of the distribution's WHEEL file."""
    for line in (dist.read_text('WHEEL') or '').splitlines():
        if line.startswith('Tag:'):
            return line.split(':', 1)[1].strip()
    raise ValueError('%s has no WHEEL tag' % dist.metadata['Name'])


def pack_installed(dist, directory):
    """Write an installed distribution back into a wheel in directory."""
    name = dist.metadata['Name'].replace('-', '_').replace('.', '_')
    path = os.path.join(directory, '%s-%s-%s.whl' % (
        name, dist.version, _wheel_tag(dist)))
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as out:
        for rel in dist.files:
            text = str(rel)
            # Scripts (../../bin) are pip's to write; bytecode is rebuilt.
            if text.startswith('..') or '__pycache__' in text:
                continue
            full = str(dist.locate_file(rel))
            if os.path.isfile(full):
                out.write(full, text)
    return path


def dependencies(name):
    """Installed distributions ssbench `name` needs on this interpreter
    (markers evaluated, no extras), transitively."""
    from importlib import metadata
    from packaging.requirements import Requirement
    found = {}
    todo = [name]
    while todo:
        dist = metadata.distribution(todo.pop())
        key = dist.metadata['Name'].lower().replace('_', '-')
        if key in found:
            continue
        found[key] = dist
        for text in dist.requires or ():
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({'extra': ''}):
                todo.append(req.name)
    return found


def build(directory, scratch):
    """ssbench's wheel and its dependencies' in directory; the path of
    ssbench's wheel."""
    tree = os.path.join(scratch, 'tree')
    shutil.copytree(os.path.join(support.ROOT, 'ssbench'),
                    os.path.join(tree, 'ssbench'),
                    ignore=shutil.ignore_patterns('__pycache__', '*.pyc'))
    for name in TREE_FILES:
        shutil.copy(os.path.join(support.ROOT, name), tree)
    ran = support.run([sys.executable, '-m', 'pip', 'wheel', '-q',
                       '--no-deps', '--no-index', '--no-build-isolation',
                       '-w', directory, tree], 300)
    if ran.status != 0:
        raise RuntimeError('building the ssbench wheel failed: %r' % (ran,))
    for key, dist in dependencies('ssbench').items():
        if key != 'ssbench':
            pack_installed(dist, directory)
    return glob.glob(os.path.join(directory, 'ssbench-*.whl'))[0]
