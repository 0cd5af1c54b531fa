"""`report-scenario`, and the report `run-scenario` prints at its end.

Every output file is checked before any work (it must not be an input
nor another output, and an existing file is replaced only with --force)
and written through a temporary file renamed into place
(ssbench.results.safefiles), so a failing report never leaves a
half-written file behind.  "-" names standard output for every output;
the files are written before anything goes to standard output, so a
report that was printed is never followed by a failed file.
"""
from __future__ import absolute_import, division, print_function

import logging
import os

from ssbench.results import safefiles
from ssbench.cli import common, loadopts

log = logging.getLogger('ssbench')

# The default --hdr-interval, seconds: the report's per-second counts.
HDR_INTERVAL = 1


def add_report_options(parser):
    """--pctile and --csv, shared by run-scenario and report-scenario."""
    parser.add_argument(
        '--pctile', metavar='PERCENTILE', type=common.pctile, default=95,
        help='Report on the N-th percentile, if generating a report')
    parser.add_argument(
        '--csv', action='store_true', default=False,
        help='Output the report in CSV format')


def add_analysis_outputs(parser):
    """--json, --html, --hdr-log, --errors, --bandwidth and --slo, shared
    by run-scenario and report-scenario."""
    parser.add_argument(
        '--json', metavar='FILE', dest='json_file', default=None,
        help='Also write the full analysis (every percentile, per-second '
        'series, errors by cause) as one JSON document to FILE; "-" '
        'writes it to standard output instead of the report')
    parser.add_argument(
        '--html', metavar='FILE', dest='html_file', default=None,
        help="Also write a self-contained HTML report with charts to FILE "
        "(needs the extra: pip install 'ssbench[html]'); \"-\" writes it "
        "to standard output instead of the report")
    parser.add_argument(
        '--hdr-log', metavar='FILE', dest='hdr_log', default=None,
        help='Also write the latencies as an HdrHistogram interval log to '
        'FILE, for HistogramLogProcessor and other HdrHistogram tools: '
        'nanoseconds, untagged lines for every operation, Tag=CREATE, '
        'READ, ... for each (see docs/live-view.rst); "-" writes it to '
        'standard output instead of the report')
    parser.add_argument(
        '--hdr-interval', metavar='SECONDS', type=common.positive_float,
        default=None,
        help='The length of the --hdr-log intervals (default: %g s)'
        % HDR_INTERVAL)
    parser.add_argument(
        '--errors', action='store_true', default=False,
        help='After the text report, print the failed requests by '
        'operation and cause (HTTP status or exception class), with first '
        'and last time seen and an example TX ID')
    parser.add_argument(
        '--bandwidth', action='store_true', default=False,
        help='After the text report, print the bandwidth by operation and '
        'size class: the bytes of the successful operations divided by the '
        'run\'s duration, in MB/s (10^6 bytes) and MiB/s (2^20 bytes)')
    parser.add_argument(
        '--slo', metavar='OBJECTIVES', default=None,
        help="Exit with status 3 when the run misses an absolute "
        "objective, e.g. 'p99<200ms,read.p99.9<1s,errors<0.1%%' (a unit "
        "on every time; the metric names of --fail-if; see "
        "docs/analysis.rst)")


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
        help='The file to which the report should be written (default, '
        'or "-": standard output)')
    add_report_options(report)
    report.add_argument(
        '--skip', metavar='SECONDS', type=loadopts.seconds, default=None,
        help='Leave the first SECONDS of the run (from its first request '
        'start) out of every statistic, as a warm-up (default: the run\'s '
        '--warmup, stored in the stats file, else 0)')
    report.add_argument(
        '-r', '--rps-histogram', metavar='RPS_HISTOGRAM', default=None,
        help='Also write a CSV file with requests completed per second '
        'histogram data ("-": to standard output instead of the report)')
    add_analysis_outputs(report)
    report.add_argument(
        '--summary', action='store_true', default=False,
        help='Instead of the report, print one line: requests, req/s, p50, '
        'p99 and p99.9 of last-byte latency, errors, MB/s and the client\'s '
        'health (the line run-scenario logs at its end)')
    report.add_argument(
        '--compare', metavar='BASE_STATS_FILE', default=None,
        help='Instead of the report, compare this run with the base run '
        'BASE_STATS_FILE side by side (throughput and percentiles per '
        'operation, with the relative change and run-to-run spread)')
    report.add_argument(
        '--fail-if', metavar='RULES', default=None,
        help="With --compare: exit with status 3 when a rule is crossed, "
        "e.g. 'p99>+10%%,rps<-5%%' (see docs/analysis.rst)")
    report.add_argument(
        '--profile', action='store_true', default=False,
        help='Profile the report generation (cProfile, written to a new '
        'file whose name is logged).')
    report.add_argument(
        '--force', action='store_true', default=False,
        help='Let -f, -r, --json, --html and --hdr-log replace existing '
        'files')
    report.set_defaults(func=cmd_report_scenario)
    return report


class ReportRequest(object):
    """What to write for one stats file: the text/CSV report (stdout or
    `report_path`; none when not `main_report`), or instead a comparison
    with `compare_base`, and the optional JSON, HTML and HdrHistogram
    log files."""

    def __init__(self, report_path=None, pctile=95, csv_output=False,
                 rps_histogram=None, profile=False, json_path=None,
                 html_path=None, compare_base=None, fail_if=None,
                 main_report=True, errors=False, skip=None, force=False,
                 bandwidth=False, slo=None, hdr_log=None,
                 hdr_interval=None, summary=False, headline=False):
        from ssbench.errors import UsageError
        if hdr_interval is not None and hdr_log is None:
            raise UsageError('--hdr-interval needs --hdr-log FILE')
        clash = [flag for flag, given in (
            ('--csv', csv_output), ('-r', rps_histogram),
            ('--compare', compare_base)) if given]
        if summary and clash:
            raise UsageError('--summary is one line in place of the report: '
                             'not with %s' % (clash[0],))
        if errors and csv_output:
            raise UsageError('--errors adds a table to the text report; '
                             'with --csv, use --json for the causes')
        if bandwidth and csv_output:
            raise UsageError('--bandwidth adds a table to the text report; '
                             'with --csv, use --json for the bandwidth')
        to_stdout = [flag for flag, path in (
            ('-f', report_path), ('-r', rps_histogram), ('--json', json_path),
            ('--html', html_path), ('--hdr-log', hdr_log))
            if path == safefiles.STDOUT]
        if len(to_stdout) > 1:
            raise UsageError('%s - and %s - would share standard output: '
                             'give one of them a file name'
                             % (to_stdout[0], to_stdout[1]))
        if report_path == safefiles.STDOUT:
            report_path = None
        # Another output on standard output: the report needs -f then.
        taken = to_stdout and to_stdout[0] != '-f' and report_path is None
        if taken and (errors or bandwidth or compare_base):
            raise UsageError('%s - and the %s would share standard '
                             'output: give -f FILE or a file name for %s'
                             % (to_stdout[0], 'comparison' if compare_base
                                else 'error table' if errors
                                else 'bandwidth table', to_stdout[0]))
        self.errors = errors
        self.bandwidth = bandwidth
        self.summary = summary
        # Log the summary line at the end (run-scenario).
        self.headline = headline
        # None: each stats file's own warm-up (recordview.stored_warmup).
        self.skip = skip
        self.main_report = main_report
        self.text_report = main_report and not taken
        self.force = force
        self.report_path = report_path
        self.pctile = pctile
        self.csv_output = csv_output
        self.rps_histogram = rps_histogram
        self.profile = profile
        self.json_path = json_path
        self.html_path = html_path
        self.hdr_log = hdr_log
        self.hdr_interval = hdr_interval or HDR_INTERVAL
        self.compare_base = compare_base
        self.rules = None
        if fail_if is not None:
            from ssbench.report.gate import parse_fail_if
            if compare_base is None:
                raise UsageError('--fail-if needs --compare BASE_STATS_FILE')
            self.rules = parse_fail_if(fail_if)
        self.objectives = None
        if slo is not None:
            from ssbench.report.slo import parse_slo
            self.objectives = parse_slo(slo)

    def outputs(self):
        """(what, path) of every file this request writes."""
        return [('report file', self.report_path),
                ('rps histogram', self.rps_histogram),
                ('JSON file', self.json_path),
                ('HTML file', self.html_path),
                ('HDR log', self.hdr_log)]

    def check(self, stats_path=None, inputs=(), outputs=()):
        """Refuse unusable or clashing output paths, and a missing extra,
        before any work.  `stats_path` is the stats file read; `inputs`
        and `outputs` are more (what, path) a run reads and writes, which
        this request's files must not replace."""
        files = [(what, path) for what, path in self.outputs()
                 if path and path != safefiles.STDOUT]
        read = [('stats file', stats_path),
                ('base stats file', self.compare_base)] + list(inputs)
        safefiles.refuse_overwriting_inputs(
            list(outputs) + files,
            [(what, path) for what, path in read if path])
        for what, path in files:
            safefiles.check_output(path, what, self.force)
        if self.html_path:
            from ssbench.report.render.html import plotly_js
            plotly_js()

    def skip_for(self, stats_file):
        """The warm-up seconds to leave out of `stats_file`: --skip, else
        the --warmup its run stored."""
        if self.skip is not None:
            return self.skip
        from ssbench.results.recordview import stored_warmup
        return stored_warmup(stats_file.header)

    def percentiles(self):
        """The analysis's percentiles, and those --fail-if rules and --slo
        objectives read."""
        from ssbench.report.compute.analyze import DEFAULT_PERCENTILES
        from ssbench.report import gate, slo
        out = list(DEFAULT_PERCENTILES)
        for pctile in gate.percentiles_of(self.rules or ()) + \
                slo.percentiles_of(self.objectives or ()):
            if pctile not in out:
                out.append(pctile)
        return tuple(out)

    def wanted(self):
        """Whether a run's end has anything to write."""
        return bool(self.main_report or self.hdr_log or self.headline or
                    self.needs_analysis())

    def needs_analysis(self):
        """Whether the analysis document is needed: the summary line
        takes its figures from the text report's pass when there is no
        document."""
        return bool(self.json_path or self.html_path or self.compare_base or
                    self.errors or self.bandwidth or self.objectives)

    def document_outputs(self, doc, html):
        """The outputs (see common.write_outputs) of --json, `doc`, and
        of --html, written by html(out)."""
        from ssbench.report.render.jsonfile import write_json
        return [(path, what, 'w', write) for path, what, write in (
            (self.json_path, 'JSON file', lambda out: write_json(doc, out)),
            (self.html_path, 'HTML file', html)) if path]


def write_reports(stats_path, request):
    """Compute what `request` asks for from a stats file and write it;
    returns the exit status (3 when a --fail-if rule was crossed or an
    --slo objective missed)."""
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
        return _write(stats_path, request)
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile_path)
            log.info('Report profile written to %s', profile_path)


def _write(stats_path, request):
    from ssbench.report.render import classic
    from ssbench.report.compute import classicnotes
    from ssbench.results.statsreader import open_stats

    # Opened once: its header read once, its warnings said once.
    stats_file = open_stats(stats_path)
    skip = request.skip_for(stats_file)
    doc = run_stats = None
    if request.needs_analysis():
        from ssbench.report.compute.analyze import analyze
        doc = analyze(stats_file, request.percentiles(), skip=skip)
    # The summary line's figures come from the pass that runs anyway,
    # the analysis's or else the text report's: one read of the file.
    wants_line = request.headline or (request.summary and
                                      request.text_report)
    text_pass = request.main_report and not (request.compare_base or
                                             request.summary)
    summary_doc = doc
    if text_pass or (wants_line and doc is None):
        run_stats = classicnotes.compute(stats_file, request.pctile, skip,
                                         wants_line and doc is None,
                                         text_pass)
        summary_doc = doc if doc is not None else run_stats.also
    status = 0
    parts = []
    # (path, what, mode, write(out)) of every output; standard output
    # last, so that a file that fails comes before any report is printed.
    outputs = []
    if request.compare_base:
        from ssbench.report.compute.analyze import analyze
        from ssbench.report import compare, gate
        base = open_stats(request.compare_base)
        result = compare.compare(
            analyze(base, request.percentiles(),
                    skip=request.skip_for(base)), doc)
        parts.append((compare.render_compare, result))
        if request.rules:
            for line in gate.failed_checks(result, request.rules):
                log.error('--fail-if %s', line)
                status = gate.THRESHOLD_EXIT
            for line in gate.too_few_checks(result, request.rules):
                log.warning('--fail-if %s', line)
    elif request.summary:
        if request.text_report:
            parts.append((_write_summary, summary_doc))
    elif text_pass:
        if request.text_report:
            parts.append((classic.render_csv if request.csv_output
                          else classic.render_text, run_stats))
        if request.rps_histogram:
            outputs.append((request.rps_histogram, 'rps histogram', 'csv',
                            lambda out: classic.render_rps_histogram(
                                run_stats, out)))
    if request.objectives:
        from ssbench.report import slo
        slo.check_document(doc, request.objectives)
        for line in slo.missed(doc, request.objectives):
            log.error('--slo %s', line)
            status = slo.MISSED_EXIT
        for line in slo.too_few(doc, request.objectives):
            log.warning('--slo %s', line)
    if request.errors:
        from ssbench.report.render.errortable import render_error_table
        parts.append((render_error_table, doc))
    if request.bandwidth:
        from ssbench.report.render.bandwidthtable import (
            render_bandwidth_table)
        parts.append((render_bandwidth_table, doc))
    if parts:
        outputs.append((request.report_path, 'report file',
                        'csv' if request.csv_output else 'w',
                        _render_parts(parts)))
    outputs += request.document_outputs(doc, lambda out: _html(doc, out))
    if request.hdr_log:
        from ssbench import version
        from ssbench.report.compute.hdrintervals import cut
        from ssbench.report.render.hdrlog import write_hdr_log
        intervals = cut(stats_file, request.hdr_interval, skip)
        outputs.append((request.hdr_log, 'HDR log', 'w',
                        lambda out: write_hdr_log(
                            intervals, out, 'ssbench %s' % (version,))))
    common.write_outputs(outputs)
    if request.headline:
        import sys
        from ssbench.report.render.headline import micro_sign
        log.info('Summary: %s', _summary(summary_doc, micro_sign(sys.stderr)))
    return status


def _html(doc, out):
    from ssbench.report.render.html import render_html
    render_html(doc, out)


def _summary(doc, micro):
    from ssbench.report.compute.suitefigures import step_figures
    from ssbench.report.render.headline import headline
    return headline(step_figures(doc), micro)


def _write_summary(doc, out):
    """report-scenario --summary: the line."""
    from ssbench.report.render.headline import write_lines
    write_lines(out, lambda micro: [_summary(doc, micro)])


def _render_parts(parts):
    """write(out) for the main output: each (render, data) of `parts`."""
    def write(out):
        for render, data in parts:
            render(data, out)
    return write


def cmd_report_scenario(args):
    """Render the report of an existing stats file."""
    request = ReportRequest(args.report_file, args.pctile, args.csv,
                            args.rps_histogram, args.profile,
                            args.json_file, args.html_file, args.compare,
                            args.fail_if, errors=args.errors,
                            skip=args.skip, force=args.force,
                            bandwidth=args.bandwidth, slo=args.slo,
                            hdr_log=args.hdr_log,
                            hdr_interval=args.hdr_interval,
                            summary=args.summary)
    request.check(args.stats_file)
    from ssbench.suite.reportfolder import suite_file, write_suite_reports
    suite = suite_file(args.stats_file)
    if suite is not None:
        return write_suite_reports(suite, request, common.write_outputs)
    return write_reports(args.stats_file, request)
