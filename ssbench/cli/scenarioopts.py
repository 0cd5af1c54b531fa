"""run-scenario's scenario: the file of -f, or one built from --size,
--crud and the other flags (ssbench.load.scenarioflags; docs/scenarios.rst,
"A run from flags"), which --print-scenario writes out instead of
running it; and --container-base."""
from __future__ import absolute_import, division, print_function

from ssbench.cli.common import checked
from ssbench.errors import UsageError
from ssbench.load import scenarioflags
from ssbench.results.safefiles import STDOUT

# The flags that build a scenario without -f: (attribute, flag, metavar,
# its scenarioflags parser, what it gives).
BUILDING_FLAGS = (
    ('size', '--size', 'SIZE[,SIZE...]', scenarioflags.parse_sizes,
     'a size class of objects of SIZE bytes (1MiB, 4K, 512) or from LOW '
     'to HIGH (4KiB-64KiB) each; a list makes several'),
    ('size_name', '--size-name', 'NAME[,NAME...]', scenarioflags.parse_names,
     'the size classes\' names (default: their sizes, as 1MiB or '
     '4KiB-64KiB)'),
    ('crud', '--crud', 'C,R,U,D', scenarioflags.parse_crud,
     'percentages of CREATE, READ, UPDATE and DELETE, adding up to 100'),
    ('objects', '--objects', 'COUNT[,COUNT...]', scenarioflags.parse_counts,
     'initial objects of each size class, or one count per class '
     '(default %d)' % scenarioflags.DEFAULT_OBJECTS))


container_base = checked(scenarioflags.parse_container_base)


def add_container_base(parser):
    """--container-base (run-scenario, run-suite)."""
    parser.add_argument(
        '--container-base', metavar='NAME', type=container_base,
        default=None,
        help='Name the run\'s containers NAME_<index>_<policy> instead of '
        'the scenario\'s container_base (default ssbench); delete them '
        'with cleanup-containers -b NAME. Over S3: the buckets\' prefix, '
        'so lower-case letters, digits and "-"')


def add_scenario_options(parser):
    """-f, the flags that build a scenario instead, --print-scenario."""
    parser.add_argument(
        '-f', '--scenario-file', default=None,
        help='Scenario file (JSON) to run; without it, --size and --crud '
        'build the scenario')
    for _name, flag, metavar, parse, text in BUILDING_FLAGS:
        parser.add_argument(flag, metavar=metavar, type=checked(parse),
                            default=None, help='Without -f: ' + text)
    parser.add_argument(
        '--print-scenario', metavar='FILE', nargs='?', const=STDOUT,
        default=None,
        help='Write the scenario the flags build, as a scenario file for '
        '-f, to FILE (or standard output) and exit without running')


def overrides(args):
    """The scenario overrides (ssbench.load.scenario.OVERRIDE_KEYS) of
    run-scenario's flags."""
    return {'user_count': args.user_count, 'operation_count': args.op_count,
            'run_seconds': args.run_seconds,
            'container_base': args.container_base,
            'container_count': args.container_count,
            'delete_after': args.delete_after, 'policy': args.policy,
            'block_size': args.block_size,
            'segment_size': args.segment_size}


def load(args):
    """The Scenario of run-scenario's -f or building flags, with the
    overrides of its other flags."""
    from ssbench.load.scenario import Scenario, load_scenario
    given = [entry[1] for entry in BUILDING_FLAGS
             if getattr(args, entry[0]) is not None]
    if args.scenario_file is not None:
        if given:
            raise UsageError('-f and %s: the scenario comes from the file or '
                             'from the flags, not both' % (given[0],))
        if args.print_scenario is not None:
            raise UsageError('--print-scenario writes the scenario that '
                             'flags build; -f names one already')
        return load_scenario(args.scenario_file, overrides(args))
    if args.size is None or args.crud is None:
        raise UsageError('give -f/--scenario-file FILE, or --size and --crud '
                         'to build the scenario from flags')
    if args.user_count is None:
        raise UsageError('a scenario from flags needs -u/--user-count')
    if args.op_count is None and args.run_seconds is None:
        raise UsageError('a scenario from flags needs -o/--op-count or '
                         '-r/--run-seconds')
    try:
        data = scenarioflags.build(
            args.size, args.crud, args.objects, args.size_name,
            segment_size=args.segment_size, user_count=args.user_count,
            operation_count=args.op_count, run_seconds=args.run_seconds,
            rate=args.rate, container_base=args.container_base,
            container_count=args.container_count, policy=args.policy,
            delete_after=args.delete_after)
    except ValueError as exc:
        raise UsageError('%s' % (exc,))
    return Scenario(data, overrides(args), source='the scenario of the flags')


def print_scenario(args, scenario):
    """--print-scenario: the scenario as JSON, to its file or standard
    output; exit status 0."""
    import json
    from ssbench.cli.common import write_outputs
    from ssbench.results import safefiles
    path = args.print_scenario
    if path != STDOUT:
        safefiles.check_output(path, 'scenario', args.force)
    text = json.dumps(scenario.data, indent=2, sort_keys=True) + '\n'
    write_outputs([(path, 'scenario', 'w', lambda out: out.write(text))])
    return 0
