"""The package layout holds: no import circle, and no package imports one
above it.  Walks every module of ssbench/ with ast, so an import inside a
function counts as much as one at the top."""
from __future__ import absolute_import

import ast
import io
import os

import pytest

from tests import paths

PACKAGE = os.path.join(paths.ROOT, 'ssbench')

# What each part may import besides itself.  The ground floor
# (ssbench/__init__, errors, compat, procstats, and the package
# ssbench.measure) is open to everyone.
GROUND = ('ssbench', 'ssbench.errors', 'ssbench.compat', 'ssbench.procstats')
GROUND_PACKAGE = 'ssbench.measure'
MAY_IMPORT = {
    GROUND_PACKAGE: (),
    'ssbench.load': (),
    'ssbench.wire': (),
    'ssbench.store': (),
    'ssbench.swift': ('ssbench.store',),
    'ssbench.s3': ('ssbench.store',),
    'ssbench.results': ('ssbench.wire',),
    'ssbench.report.compute': ('ssbench.results', 'ssbench.load'),
    'ssbench.report.render': ('ssbench.report.compute', 'ssbench.results',
                              'ssbench.load'),
    'ssbench.report': ('ssbench.report.compute', 'ssbench.report.render',
                       'ssbench.results', 'ssbench.load'),
    'ssbench.worker': ('ssbench.store', 'ssbench.swift', 'ssbench.wire',
                       'ssbench.s3'),
    'ssbench.master': ('ssbench.load', 'ssbench.wire', 'ssbench.swift',
                       'ssbench.results', 'ssbench.report'),
    'ssbench.suite': ('ssbench.load', 'ssbench.results', 'ssbench.report',
                      'ssbench.master'),
    'ssbench.cli': ('ssbench',),
}


def module_name(path):
    rel = os.path.relpath(path, paths.ROOT)[:-len('.py')]
    name = rel.replace(os.sep, '.')
    return name[:-len('.__init__')] if name.endswith('.__init__') else name


def modules():
    """{module name: path} for every module of the package."""
    found = {}
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith('.py'):
                path = os.path.join(folder, name)
                found[module_name(path)] = path
    return found


def imported(path, known):
    """The ssbench modules a module imports (a `from P import name` counts
    as P.name when that is a module, else as P)."""
    with io.open(path, encoding='utf-8') as fp:
        tree = ast.parse(fp.read(), path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names
                       if a.name.split('.')[0] == 'ssbench')
        elif isinstance(node, ast.ImportFrom) and not node.level and \
                (node.module or '').split('.')[0] == 'ssbench':
            for alias in node.names:
                sub = node.module + '.' + alias.name
                out.add(sub if sub in known else node.module)
    return out


def graph():
    known = modules()
    return {name: imported(path, known) for name, path in known.items()}


def part_of(module):
    """The most specific part of MAY_IMPORT a module belongs to."""
    best = None
    for part in MAY_IMPORT:
        if module == part or module.startswith(part + '.'):
            if best is None or len(part) > len(best):
                best = part
    return best


def on_the_ground_floor(module):
    return module in GROUND or module == GROUND_PACKAGE or \
        module.startswith(GROUND_PACKAGE + '.')


def allowed(importer, target):
    if on_the_ground_floor(target):
        return True
    own = part_of(importer)
    if own is None:  # the ground floor itself imports nothing above it
        return False
    if own == 'ssbench.cli':
        return True
    owner = part_of(target)
    if owner == own:
        return True
    return any(target == p or target.startswith(p + '.')
               for p in MAY_IMPORT[own])


def cycles(edges):
    """Every strongly connected group of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in edges:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1 or v in edges.get(v, ()):
                out.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


@pytest.fixture(scope='module')
def tree_graph():
    """graph() of the tree, parsed once for the tests that read it."""
    return graph()


def test_no_import_circle(tree_graph):
    assert cycles(tree_graph) == []


def test_no_import_from_a_layer_above(tree_graph):
    wrong = sorted('%s imports %s' % (importer, target)
                   for importer, targets in tree_graph.items()
                   for target in targets
                   if target != importer and not allowed(importer, target))
    assert wrong == []


def test_every_module_belongs_to_a_part(tree_graph):
    strays = [m for m in tree_graph
              if m not in GROUND and part_of(m) is None]
    assert strays == []


def test_the_checks_see_a_circle_and_a_wrong_way_import():
    assert cycles({'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a'}}) == \
        [['a', 'b', 'c']]
    assert not allowed('ssbench.wire.protocol', 'ssbench.worker.health')
    assert not allowed('ssbench.report.compute.scan',
                       'ssbench.report.render.classic')
    assert allowed('ssbench.master.scenariorun', 'ssbench.load.jobgen')
    assert allowed('ssbench.load.schedule', 'ssbench.measure')
    assert not allowed('ssbench.measure', 'ssbench.wire.protocol')
