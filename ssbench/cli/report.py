"""`report-scenario`, and the report `run-scenario` prints at its end.

Every output file is checked before any work (it must not be the stats
file, nor another output) and written through a temporary file renamed
into place (ssbench.safefiles), so a failing report never leaves a
half-written file behind.
"""
from __future__ import absolute_import, division, print_function

import logging
import os
import sys

from ssbench import safefiles
from ssbench.cli import common

log = logging.getLogger('ssbench')


def add_report_options(parser):
    """--pctile and --csv, shared by run-scenario and report-scenario."""
    parser.add_argument(
        '--pctile', metavar='PERCENTILE', type=common.pctile, default=95,
        help='Report on the N-th percentile, if generating a report')
    parser.add_argument(
        '--csv', action='store_true', default=False,
        help='Output the report in CSV format')


def add_report_parser(subparsers, formatter_class):
    """The report-scenario sub-command."""
    report = subparsers.add_parser(
        'report-scenario',
        help='Generate a report from saved scenario statistics. Various '
        'types of reports may be generated, with the default being a '
        '"textual summary".',
        formatter_class=formatter_class)
    report.add_argument(
        '-s', '--stats-file', required=True,
        help='An existing stats file from a previous --run-scenario '
        'invocation')
    report.add_argument(
        '-f', '--report-file', default=None,
        help='The file to which the report should be written (default: '
        'standard output)')
    add_report_options(report)
    report.add_argument(
        '-r', '--rps-histogram', metavar='RPS_HISTOGRAM', default=None,
        help='Also write a CSV file with requests completed per second '
        'histogram data')
    report.add_argument(
        '--profile', action='store_true', default=False,
        help='Profile the report generation (cProfile, written to a new '
        'file whose name is logged).')
    report.set_defaults(func=cmd_report_scenario)
    return report


class ReportRequest(object):
    """What to write for one stats file: the text/CSV report (stdout or
    `report_path`) and the optional extra outputs."""

    def __init__(self, report_path=None, pctile=95, csv_output=False,
                 rps_histogram=None, profile=False):
        self.report_path = report_path
        self.pctile = pctile
        self.csv_output = csv_output
        self.rps_histogram = rps_histogram
        self.profile = profile

    def outputs(self):
        """(what, path) of every file this request writes."""
        return [('report file', self.report_path),
                ('rps histogram', self.rps_histogram)]

    def check(self, stats_path=None):
        """Refuse unusable or clashing output paths before any work."""
        outputs = [(what, path) for what, path in self.outputs() if path]
        for what, path in outputs:
            safefiles.check_output(path, what)
        safefiles.refuse_overwriting_inputs(
            outputs, [('stats file', stats_path)] if stats_path else [])


def write_reports(stats_path, request):
    """Compute the statistics of a stats file once and write what
    `request` asks for."""
    from ssbench import report, stats

    profiler = profile_path = None
    if request.profile:
        import cProfile
        import tempfile
        fd, profile_path = tempfile.mkstemp(prefix='ssbench-report-',
                                            suffix='.prof')
        os.close(fd)
        profiler = cProfile.Profile()
        profiler.enable()
    try:
        run_stats = stats.compute(stats_path, pctile=request.pctile)
        if request.csv_output:
            render, mode = report.render_csv, 'csv'
        else:
            render, mode = report.render_text, 'w'
        if request.report_path:
            with safefiles.atomic_output(request.report_path, 'report file',
                                         mode) as out:
                render(run_stats, out)
        else:
            render(run_stats, sys.stdout)
            sys.stdout.flush()
        if request.rps_histogram:
            with safefiles.atomic_output(request.rps_histogram,
                                         'rps histogram', 'csv') as out:
                report.render_rps_histogram(run_stats, out)
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile_path)
            log.info('Report profile written to %s', profile_path)


def cmd_report_scenario(args):
    """Render the report of an existing stats file."""
    request = ReportRequest(args.report_file, args.pctile, args.csv,
                            args.rps_histogram, args.profile)
    request.check(args.stats_file)
    write_reports(args.stats_file, request)
    return 0
