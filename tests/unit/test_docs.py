"""README.rst, CHANGELOG.rst and docs/ name only what exists.

Every command (``ssbench-master <sub-command>``, ``ssbench-worker``,
``python -m ssbench...``, ``tools/...``, ``bench/...``), every flag and
every path the pages show in their literals (inline ``...`` and literal
blocks) is checked against the tree and the real argparse parsers; every
flag of every command is named in docs/usage.rst; the README's table of
packages is the tree's, with test_layers' rules of what each may import;
every page is valid reStructuredText whose links between pages land on a
file and a section that exist.
"""
from __future__ import absolute_import

import argparse
import ast
import glob
import importlib
import io
import os
import re

import pytest

import ssbench

from tests import paths

ROOT = paths.ROOT
PAGES = ['README.rst', 'CHANGELOG.rst'] + sorted(
    os.path.relpath(p, ROOT)
    for p in glob.glob(os.path.join(ROOT, 'docs', '*.rst')))

# Commands of other programs, whose flags are theirs (a token whose base
# name is one of these starts a stretch no flag of which is checked).
FOREIGN = frozenset([
    'ansible-playbook', 'apt-get', 'eval', 'flake8', 'git', 'gzip',
    'install', 'ip', 'journalctl', 'jq', 'kill', 'pip', 'pytest', 'sudo',
    # Containers and Kubernetes (docs/kubernetes.rst, docs/many-hosts.rst).
    'docker', 'helm', 'kubectl', 'podman', 'scp',
    'systemctl', 'tcpdump', 'time', 'ulimit', 'useradd', 'wrk',
    # Prometheus and Grafana (docs/live-view.rst).
    'curl', 'promtool',
    # HdrHistogram's tools (docs/live-view.rst).
    'java', 'hdr-plot',
])
PYTHONS = re.compile(r'^python[0-9.]*$')
# Tokens after which a new command starts.
SEPARATORS = frozenset(['|', '&&', '||', ';', '&'])
# A flag: a dash or two and a letter, at the start of a token or after
# one of these (so that names like ssbench-worker or first-byte are not),
# and not a pattern (--os-*) nor a sign (+/-X%).
FLAG = re.compile(r'''(?:^|(?<=[\s\[(/:'"=,]))(?<!\+/)'''
                  r'''(--?[A-Za-z][A-Za-z0-9_-]*)(?![*\w-])''')
TREE_DIRS = r'(?:\.ci|bench|bin|deploy|docs|scenarios|ssbench|tests|tools)'
PATH = re.compile(r'''(?<![\w./$-])(%s/[^\s`'"()<>,;:\]\[{}|]*)'''
                  % TREE_DIRS)
MODULE = re.compile(r'(?<![\w./-])(ssbench(?:\.[A-Za-z_]\w*)+)')
INLINE = re.compile(r'``(.+?)``', re.S)
QUOTED = re.compile(r'''(?<![\w])'[^']*'|"[^"]*"''')


def read(page):
    with io.open(os.path.join(ROOT, page), encoding='utf-8') as fp:
        return fp.read()


# -- what the pages show --------------------------------------------------

def literal_blocks(text):
    """The lines of every literal block (after a paragraph ending in
    '::'), with backslash continuations joined."""
    lines = text.split('\n')
    blocks = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.endswith('::') and not stripped.startswith('..'):
            base = len(line) - len(line.lstrip())
            i += 1
            block = []
            while i < len(lines):
                body = lines[i]
                if body.strip() and len(body) - len(body.lstrip()) <= base:
                    break
                block.append(body.strip())
                i += 1
            blocks.append(_join_continuations(block))
            continue
        i += 1
    return blocks


def _join_continuations(lines):
    out = []
    pending = ''
    for line in lines:
        if line.endswith('\\'):
            pending += line[:-1] + ' '
            continue
        out.append(pending + line)
        pending = ''
    if pending:
        out.append(pending)
    return [line for line in out if line]


def inline_literals(text):
    """The text of every inline literal, on one line."""
    return [' '.join(m.group(1).split()) for m in INLINE.finditer(text)]


def literals(text):
    """Every inline literal and every line of every literal block."""
    found = inline_literals(text)
    for block in literal_blocks(text):
        found.extend(block)
    return found


# -- what the tree has ------------------------------------------------------

def _options(parser):
    """{sub-command path: option strings}, '' for the top level."""
    found = {}

    def walk(parser, name):
        options = found.setdefault(name, set())
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, subparser in action.choices.items():
                    walk(subparser, (name + ' ' + sub).strip())
            options.update(action.option_strings)
    walk(parser, '')
    return found


def parsers():
    """{command: {sub-command: option strings}} of ssbench's commands."""
    from ssbench.cli import curve, master, worker
    return {'ssbench-master': _options(master.build_parser()),
            'ssbench-worker': _options(worker.build_parser()),
            'python -m ssbench.cli.curve': _options(curve.build_parser())}


def script_options(path):
    """The option strings a script's add_argument() calls name."""
    with io.open(path, encoding='utf-8') as fp:
        tree = ast.parse(fp.read(), path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and \
                getattr(node.func, 'attr', None) == 'add_argument':
            for arg in node.args:
                value = getattr(arg, 'value', None)    # 2.7: ast.Str.s
                if value is None:
                    value = getattr(arg, 's', None)
                if isinstance(value, str) and value.startswith('-'):
                    found.add(value)
    return found | set(['-h', '--help'])


class Tree(object):
    """The commands, flags and files the pages are checked against."""

    def __init__(self, root=ROOT):
        self.root = root
        self.commands = parsers()
        master = self.commands['ssbench-master']
        self.subcommands = dict(
            (name, master[name] | master['']) for name in master if name)
        self.every_flag = set()
        for tree in self.commands.values():
            for options in tree.values():
                self.every_flag |= options

    def exists(self, path):
        return os.path.exists(os.path.join(self.root, path))

    def check_path(self, path):
        path = path.rstrip('.')
        if '*' in path:
            path = os.path.dirname(path)
        if not self.exists(path):
            return 'no such file: %s' % path
        return None

    def check_module(self, dotted):
        """A dotted name is a module, or an attribute of one."""
        parts = dotted.split('.')
        for cut in range(len(parts), 0, -1):
            try:
                thing = importlib.import_module('.'.join(parts[:cut]))
            except ImportError:
                continue
            for name in parts[cut:]:
                if not hasattr(thing, name):
                    return 'no such module or name: %s' % dotted
                thing = getattr(thing, name)
            return None
        return 'no such module: %s' % dotted


def _flags(token):
    return [m.group(1) for m in FLAG.finditer(token)]


def problems_in(line, tree):
    """What is wrong in one literal: unknown commands, sub-commands, flags
    of those commands (or of no command: then of any), paths, modules."""
    problems = []
    for match in PATH.finditer(line):
        problems.append(tree.check_path(match.group(1)))
    for match in MODULE.finditer(line):
        problems.append(tree.check_module(match.group(1)))
    options = tree.every_flag
    where = 'any ssbench command'
    # A quoted argument is a value (--extra '--zmq-curve-dir DIR' passes
    # flags to another command): no flag in it is checked.
    tokens = QUOTED.sub('VALUE', line).split()
    i = 0
    while i < len(tokens):
        token = tokens[i].strip('"\'`()[],;')
        base = token.rsplit('/', 1)[-1].rstrip(':')
        if token in SEPARATORS or tokens[i] in SEPARATORS:
            options, where = tree.every_flag, 'any ssbench command'
        elif token == 'ssbench-master':
            options, where = tree.commands[token][''], token
            j = i + 1
            while j < len(tokens) and tokens[j].startswith('-'):
                j += 1
            if j < len(tokens) and re.match(r'^[a-z]+(-[a-z]+)+$',
                                            tokens[j]):
                sub = tokens[j]
                if sub not in tree.subcommands:
                    problems.append('no sub-command ssbench-master %s'
                                    % sub)
        elif token in tree.subcommands:
            options, where = tree.subcommands[token], token
        elif token == 'ssbench-worker':
            options, where = tree.commands[token][''], token
        elif PYTHONS.match(base) and tokens[i + 1:i + 2] == ['-m']:
            module = tokens[i + 2] if i + 2 < len(tokens) else ''
            i += 2
            if module.startswith('ssbench'):
                command = tree.commands.get('python -m ' + module)
                if command is None:
                    options, where = set(), 'python -m ' + module
                else:
                    options = set().union(*command.values())
                    where = 'python -m ' + module
            else:
                options, where = None, module
        elif re.match(r'^(\./)?bench/\w+\.py$', token):
            script = os.path.join(tree.root, token)
            if os.path.exists(script):
                options, where = script_options(script), token
        elif re.match(r'^(\./)?(tools/|\.ci/)', token) or base in FOREIGN \
                or base.endswith('pip') or PYTHONS.match(base):
            options, where = None, base
        else:
            for flag in _flags(tokens[i]):
                flag = flag.split('=')[0]
                if options is not None and flag not in options:
                    problems.append('%s has no flag %s' % (where, flag))
        i += 1
    return [p for p in problems if p]


def page_problems(page, text, tree):
    return ['%s: %s: in ``%s``' % (page, problem, line)
            for line in literals(text)
            for problem in problems_in(line, tree)]


@pytest.fixture(scope='module')
def tree():
    return Tree()


@pytest.mark.parametrize('page', PAGES)
def test_page_names_only_what_exists(page, tree):
    assert page_problems(page, read(page), tree) == []


# -- the check can fail ------------------------------------------------------

@pytest.mark.parametrize('text, problem', [
    ('``ssbench-master run-scenario --no-such-flag``',
     'run-scenario has no flag --no-such-flag'),
    ('``run-scenario -Z 3``', 'run-scenario has no flag -Z'),
    ('::\n\n  $ ssbench-master report-scenario -s x \\\n      --rate 3\n',
     'report-scenario has no flag --rate'),
    ('``ssbench-master frobnicate-runs``',
     'no sub-command ssbench-master frobnicate-runs'),
    ('``ssbench-worker --zmq-bind-ip x 1``',
     'ssbench-worker has no flag --zmq-bind-ip'),
    ('``--made-up``', 'any ssbench command has no flag --made-up'),
    ('``-f scenarios/ci.scenario``',
     'no such file: scenarios/ci.scenario'),
    ('``tools/no-such-tool``', 'no such file: tools/no-such-tool'),
    ('``python bench/no_such.py --runs 5``',
     'no such file: bench/no_such.py'),
    ('``python bench/noop_throughput.py --no-such``',
     'bench/noop_throughput.py has no flag --no-such'),
    ('``python -m ssbench.cli.nothing keys``',
     'no such module or name: ssbench.cli.nothing'),
    ('``ssbench.report.analyze(f)``',
     'no such module or name: ssbench.report.analyze'),
])
def test_made_up_names_are_found(text, problem, tree):
    assert problem in ' '.join(page_problems('x.rst', text, tree))


def test_other_programs_keep_their_flags(tree):
    text = ('``kill -STOP``, ``wrk -t2 -c64``, ``tools/run-tests -m e2e``, '
            "``python bench/client_capacity.py --extra '--rate 5'``, "
            '``--fail-if "--any"``, '
            '``python3 -m venv x``, ``/tmp/ssbench-worker-<id>-XXXX.prof``, '
            '``ssbench-master -v run-scenario -f x --rate 3``')
    assert page_problems('x.rst', text, tree) == []


# -- every flag is documented -------------------------------------------------

def auth_flags():
    from ssbench.cli.authopts import add_auth_options
    parser = argparse.ArgumentParser(add_help=False)
    add_auth_options(parser)
    return set(parser._option_string_actions)


def sections(text):
    """{title: text} of the sections of a page, at every level."""
    found = {}
    title = None
    lines = text.split('\n')
    for i, line in enumerate(lines):
        underline = lines[i + 1] if i + 1 < len(lines) else ''
        if line.strip() and re.match(r'^([=~-])\1{2,}$', underline) and \
                len(underline) >= len(line.rstrip()):
            title = line.strip()
            found[title] = ''
        elif title is not None:
            found[title] += line + '\n'
    return found


def named_flags(text):
    named = set()
    for line in literals(text):
        for token in line.split():
            named.update(flag.split('=')[0] for flag in _flags(token))
    return named


def test_usage_names_every_flag_of_every_command(tree):
    """Each command's section of docs/usage.rst names its flags; the
    auth options, which three commands share, have a section of their
    own."""
    usage = sections(read(os.path.join('docs', 'usage.rst')))
    auth = auth_flags()
    master = tree.commands['ssbench-master']
    wanted = {
        'ssbench-master': master[''],
        'ssbench-worker': tree.commands['ssbench-worker'][''] - auth,
        'CURVE keys': set().union(
            *tree.commands['python -m ssbench.cli.curve'].values()) -
        set(['-h', '--help']),
        'Auth options': auth,
    }
    for sub in tree.subcommands:
        wanted[sub] = master[sub] - auth - set(['-h', '--help'])
    missing = dict((title, sorted(flags - named_flags(usage.get(title, ''))))
                   for title, flags in wanted.items())
    assert missing == dict((title, []) for title in wanted)


# -- the README's table of packages -----------------------------------------

def packages_in_tree():
    top = os.path.join(ROOT, 'ssbench')
    found = []
    for folder, _, files in os.walk(top):
        if '__init__.py' in files and folder != top:
            rel = os.path.relpath(folder, ROOT).replace(os.sep, '/')
            found.append(rel + '/')
    return sorted(found)


def simple_table_rows(lines):
    """The rows of the first simple table in lines, each a list of cell
    texts (a line whose first cell is blank continues the row above)."""
    borders = [i for i, line in enumerate(lines)
               if re.match(r'^=+( +=+)+ *$', line)]
    edges = [m.span() for m in re.finditer(r'=+', lines[borders[0]])]
    rows = []
    for line in lines[borders[1] + 1:borders[2]]:
        cells = [line[a:b if i + 1 < len(edges) else None].strip()
                 for i, (a, b) in enumerate(edges)]
        if cells[0] or not rows:
            rows.append(cells)
        else:
            rows[-1] = [(old + ' ' + new).strip()
                        for old, new in zip(rows[-1], cells)]
    return rows


def package_table(text):
    """{package path: may-import cell} of the README's table of
    packages, in its order."""
    section = text.split('\nThe packages\n', 1)[1].split('\n\n\n', 1)[0]
    return [(row[0].strip('`'), row[-1])
            for row in simple_table_rows(section.split('\n'))]


def packages_in_table(text):
    return [package for package, _ in package_table(text)]


def rule_of(package):
    """What the README's "may import" cell of a package should say, from
    the rules tests/unit/test_layers.py enforces."""
    from tests.unit import test_layers
    dotted = package.rstrip('/').replace('/', '.')

    def short(name):
        return '``%s``' % name[len('ssbench.'):].replace('.', '/')
    if dotted not in test_layers.MAY_IMPORT:
        return 'as %s' % short(test_layers.part_of(dotted))
    allowed = test_layers.MAY_IMPORT[dotted]
    if allowed == ('ssbench',):
        return 'anything'
    return ', '.join(short(name) for name in allowed) or 'nothing'


def test_readme_lists_each_package_once():
    listed = packages_in_table(read('README.rst'))
    assert len(listed) == len(set(listed))
    assert sorted(listed) == packages_in_tree()


def test_readme_says_what_each_package_may_import():
    table = package_table(read('README.rst'))
    assert [(package, cell) for package, cell in table
            if cell != rule_of(package)] == []


TABLE = ('x\nThe packages\n============\n\n'
         '=================== ===== ===========\n'
         'package             role  may import\n'
         '=================== ===== ===========\n'
         '``ssbench/load/``   a     nothing\n'
         '``ssbench/wire/``   b     ``load``\n'
         '``ssbench/master/`` c     ``load``,\n'
         '                    d     ``wire``\n'
         '=================== ===== ===========\n\n\nmore')


def test_package_table_checks_can_fail():
    assert package_table(TABLE) == [
        ('ssbench/load/', 'nothing'), ('ssbench/wire/', '``load``'),
        ('ssbench/master/', '``load``, ``wire``')]
    assert packages_in_table(TABLE) != packages_in_tree()
    assert rule_of('ssbench/wire/') == 'nothing'
    assert rule_of('ssbench/master/') != '``load``, ``wire``'
    assert rule_of('ssbench/wire/curve/') == 'as ``wire``'
    assert rule_of('ssbench/cli/') == 'anything'


# -- figures a reader can follow ----------------------------------------------

ISSUE = re.compile(r'\bissues? +#?[0-9]+', re.I)
# A bare token of 7 to 40 hex digits, with a digit and a letter, is an
# abbreviated commit (transaction ids, in which one ends after a dash,
# are not bare).
HEX = re.compile(r'(?<![\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])'
                 r'[0-9a-f]{7,40}(?![\w-])', re.I)


def history_marks(text):
    """Issue numbers and commit hashes: marks of the project's history
    that a reader of the figures cannot follow."""
    return ISSUE.findall(text) + HEX.findall(text)


def test_performance_names_no_issue_and_no_commit():
    assert history_marks(read(os.path.join('docs', 'performance.rst'))) \
        == []


@pytest.mark.parametrize('text, found', [
    ('the range issue 21 measured', ['issue 21']),
    ('(Issues 21, 22)', ['Issues 21']),
    ('--compare-rev 03c7933 --runs 3', ['03c7933']),
    ('tree e6b6552a0f, then', ['e6b6552a0f']),
    ('tx32f482470e14494395543-006b04862d, 1000000 results, '
     'accepted effaced', []),
])
def test_history_marks_are_found(text, found):
    assert history_marks(text) == found


# -- valid reStructuredText, links that land ---------------------------------

def doctree(page, text, warnings):
    from docutils.core import publish_doctree
    return publish_doctree(text, source_path=page, settings_overrides={
        'report_level': 2, 'halt_level': 5, 'warning_stream': warnings,
        'file_insertion_enabled': False, 'raw_enabled': False})


def each(tree, kind):
    """The nodes of a kind (findall on docutils 0.18.1 and later)."""
    return getattr(tree, 'findall', tree.traverse)(kind)


def section_ids(page):
    from docutils import nodes
    ids = set()
    tree = doctree(page, read(page), io.StringIO())
    for section in each(tree, nodes.section):
        ids.update(section['ids'])
    return ids


def link_problems(page, text):
    """Warnings of docutils, and links to pages or sections that are not
    there (links out of the tree are not followed)."""
    from docutils import nodes
    warnings = io.StringIO()
    tree = doctree(page, text, warnings)
    problems = [line for line in warnings.getvalue().splitlines() if line]
    here = os.path.dirname(page)
    targets = [node['refuri'] for node in each(tree, nodes.reference)
               if 'refuri' in node]
    targets += [node['uri'] for node in each(tree, nodes.image)]
    for uri in targets:
        if re.match(r'^[a-z]+:', uri):
            continue
        path, _, anchor = uri.partition('#')
        target = os.path.normpath(os.path.join(here, path))
        if not os.path.exists(os.path.join(ROOT, target)):
            problems.append('%s: no such file %s' % (page, target))
        elif anchor and anchor not in section_ids(target):
            problems.append('%s: no section #%s in %s' % (page, anchor,
                                                          target))
    return problems


@pytest.mark.parametrize('page', PAGES)
def test_page_is_valid_rst_with_links_that_land(page):
    pytest.importorskip('docutils')
    assert link_problems(page, read(page)) == []


def test_broken_rst_and_links_are_found():
    pytest.importorskip('docutils')
    text = ('Title\n=====\n\nSee `nowhere`_, `a page <docs/none.rst>`__ '
            'and `a section <docs/usage.rst#no-such-part>`__.\n')
    found = ' '.join(link_problems('README.rst', text))
    assert 'Unknown target name: "nowhere"' in found
    assert 'no such file docs/none.rst' in found
    assert 'no section #no-such-part in docs/usage.rst' in found


# -- the contributors' page says what the code makes -------------------------

INTERNALS = os.path.join('docs', 'internals.rst')


def unnamed(names, text):
    """The names of `names` that `text` shows nowhere as ``name``."""
    return sorted(set(name for name in names
                      if '``%s``' % name not in text))


class _Grant(object):
    storage_urls = ['http://a/v1/AUTH_x']
    token = 't'
    generation = 1


def wire_names():
    """Every message type and every key a master or a worker sends."""
    from ssbench.wire import protocol
    names = set([protocol.PING, protocol.SUICIDE, protocol.HEARTBEAT,
                 protocol.REFUSED, protocol.CLOCK, protocol.CONFIGURE])
    names.update(protocol.JOB_KEYS + protocol.IDENTITY_KEYS +
                 protocol.HEALTH_KEYS + protocol.HOST_KEYS +
                 protocol.S3_KEYS + protocol.SEGMENTS_KEYS +
                 protocol.S3_ADDRESSING + ssbench.LARGE_OBJECT_KINDS)
    messages = [
        protocol.refused('why'), protocol.clock_probe(1.0),
        protocol.configure_job(1, 2, 3, _Grant(), True, False, None,
                               (0.1, 1), {}, 60),
        protocol.heartbeat(1, [], True, 1, True, 'why'),
        protocol.result_ok({'job_id': 1}, 1, 0.1, 0.2, 'tx', 0,
                           status=200, reconnects=0, size=1,
                           retry_causes={'503': 1}),
        protocol.result_error({'job_id': 1}, 1, 'e', 'tb', 0,
                              time_to_failure=1.0, reconnects=0,
                              retry_causes={'503': 1})]
    for message in messages:
        names.update(message)
    return names - set(['type'])


def record_names():
    """Every key of a result record, by its schema."""
    from ssbench.measure import record
    return set([field[0] for field in record.FIELDS] +
               [record.RETRY_CAUSES, record.SEGMENTS])


def stats_header_names():
    """Every key the master may write in a stats file's header: the
    scenario's, and each ``header[...] = `` and header map literal of the
    code that builds it."""
    from ssbench.cli import s3run
    from ssbench.measure import record
    from ssbench.results import workerlist
    names = set([record.ENDPOINTS, record.HEADER_KEY, workerlist.HEADER_KEY,
                 s3run.PROTOCOL_KEY, 's3'] +
                [key for key, _ in workerlist.FIELDS])
    path = os.path.join(ROOT, 'ssbench', 'load', 'scenario.py')
    with io.open(path, encoding='utf-8') as fp:
        tree = ast.parse(fp.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and \
                node.name == 'stats_header':
            for item in ast.walk(node):
                if isinstance(item, ast.Dict):
                    # A constant's value (3) or a string's s (2.7); a
                    # name (record.HEADER_KEY) is among those above.
                    names.update(vars(key).get('value', vars(key).get('s'))
                                 for key in item.keys
                                 if not isinstance(key, ast.Name))
    for path in glob.glob(os.path.join(ROOT, 'ssbench', '*', '*.py')):
        with io.open(path, encoding='utf-8') as fp:
            text = fp.read()
        names.update(re.findall(r"\bheader\['(\w+)'\](?:\['\w+'\])? = ",
                                text))
        names.update(re.findall(r"\bheader = \{'(\w+)'", text))
    return names


def control_record_names():
    """Every kind of control record and every event a stats file holds."""
    from ssbench.load import schedule
    from ssbench.suite import steadystate
    from ssbench.results import clockrecords, eventrecords, healthrecords
    return set((schedule.SCHEDULE_RECORD, steadystate.RECORD_KIND,
                clockrecords.CLOCK_RECORD, eventrecords.EVENT_RECORD,
                healthrecords.HEALTH_RECORD) + eventrecords.STORED)


@pytest.mark.parametrize('names', [wire_names, record_names,
                                   stats_header_names,
                                   control_record_names])
def test_internals_names_what_the_code_makes(names):
    assert unnamed(names(), read(INTERNALS)) == []


def test_internals_checks_can_fail():
    assert unnamed(['PING', 'job_id', 'nowhere'], '``PING`` and job_id') \
        == ['job_id', 'nowhere']
    assert 'seed' in stats_header_names()
    assert 'until_steady' in stats_header_names()
    assert 'suite' in stats_header_names()
    assert 'config_refused' in wire_names()


CITATION = re.compile(r'\bSPEC\b(?! *=)|\bdesign notes\b|\bDESIGN\b')


def test_the_code_cites_pages_in_the_tree():
    """No comment cites a SPEC or design notes outside the repository."""
    found = []
    for folder in ('ssbench', 'tests', 'bench', 'docs'):
        for base, _, files in os.walk(os.path.join(ROOT, folder)):
            for name in files:
                if not name.endswith(('.py', '.rst')) or \
                        name == 'test_docs.py':
                    continue
                path = os.path.join(base, name)
                with io.open(path, encoding='utf-8') as fp:
                    for number, line in enumerate(fp, 1):
                        if CITATION.search(line.replace('_SPEC', '')):
                            found.append('%s:%d' % (
                                os.path.relpath(path, ROOT), number))
    assert found == []


# -- one version ---------------------------------------------------------

RELEASE = re.compile(r'^(\d+(?:\.\d+)+) \((unreleased|\d{4}-\d\d-\d\d)\)\n=+$',
                     re.M)
# A version of this project named in a page: an image tag, a file name, a
# report's "ssbench version X".
NAMED_VERSION = re.compile(r'ssbench(?:[:-]| version )'
                           r'(\d+\.\d+(?:\.\d+)*(?:\.?(?:dev|a|b|rc)\d+)?)')


def releases(text):
    """[(version, date or 'unreleased')] of the CHANGELOG, top first."""
    return RELEASE.findall(text)


def release_of(version):
    """The release a version is, or is a development version of:
    '0.7.0.dev0' -> '0.7.0'."""
    return re.match(r'\d+(?:\.\d+)*', version).group(0)


def numbers(version):
    return tuple(int(part) for part in release_of(version).split('.'))


def test_changelog_top_release_is_the_version():
    import ssbench
    found = releases(read('CHANGELOG.rst'))
    top, date = found[0]
    if date == 'unreleased':
        assert release_of(ssbench.version) == top
        assert ssbench.version != top          # a .devN until released
    else:
        assert ssbench.version == top
    assert [numbers(v) for v, _ in found] == sorted(
        (numbers(v) for v, _ in found), reverse=True)
    dates = [d for _, d in found if d != 'unreleased']
    assert dates == sorted(dates, reverse=True)
    assert [d for _, d in found[1:] if d == 'unreleased'] == []


def test_pages_name_only_this_version():
    import ssbench
    named = []
    for page in PAGES + ['deploy/ansible/group_vars/all.yml']:
        named.extend((page, v) for v in NAMED_VERSION.findall(read(page)))
    assert named
    assert [(page, v) for page, v in named if v != ssbench.version] == []


def test_helm_chart_is_this_version():
    import ssbench
    chart = read(os.path.join('deploy', 'helm', 'ssbench', 'Chart.yaml'))
    fields = dict(re.findall(r'^(\w+): *"?([^"\n]*)"?$', chart, re.M))
    assert fields['appVersion'] == ssbench.version
    # A chart's own version is SemVer: 0.7.0.dev0 -> 0.7.0-dev0.
    assert fields['version'] == re.sub(r'\.?(dev|a|b|rc)', r'-\1',
                                       ssbench.version, count=1)


def test_fleet_requirement_refuses_the_original_only():
    """The playbook's pip requirement keeps out 0.3.9 (a public index's
    ssbench) and lets this version in."""
    import ssbench
    value = re.search(r'^ssbench_package: "ssbench>=([\d.]+)"$',
                      read('deploy/ansible/group_vars/all.yml'),
                      re.M).group(1)
    floor = numbers(value)
    assert (0, 3, 9) < floor <= numbers(ssbench.version)


def test_version_checks_can_fail():
    text = ('x\n\n0.7.0 (unreleased)\n==================\n\n'
            '0.6.0 (2026-11-28)\n==================\n')
    assert releases(text) == [('0.7.0', 'unreleased'),
                              ('0.6.0', '2026-11-28')]
    assert release_of('0.7.0.dev0') == '0.7.0'
    assert NAMED_VERSION.findall(
        'tools/mkimage -t r/ssbench:0.4.0; dist/ssbench-0.7.0.dev0-py311.pyz'
        ' (ssbench version 0.3.9) ssbench-000001-default') == [
        '0.4.0', '0.7.0.dev0', '0.3.9']
