"""report-scenario on a suite: `-s` naming a run-suite folder (or its
suite.json) re-renders the suite from its steps' stats files, and with
--compare BASE (another suite) sets the two curves side by side."""
from __future__ import absolute_import, division, print_function

import logging
import os

from ssbench.suite import folder as suitefolder
from ssbench.errors import StatsFileError, UsageError
from ssbench.results.safefiles import STDOUT

log = logging.getLogger('ssbench')

SUITE_FILE = suitefolder.SUITE_FILE


def suite_file(path):
    """The suite.json that `path` names (a suite folder or the file
    itself), or None when it names something else (a stats file)."""
    if path is None:
        return None
    if os.path.isdir(path):
        candidate = os.path.join(path, SUITE_FILE)
        if os.path.isfile(candidate):
            return candidate
        raise StatsFileError('%s: a folder without %s: neither a stats '
                             'file nor a suite' % (path, SUITE_FILE))
    if os.path.basename(path) == SUITE_FILE:
        return path
    return None


def read_suite(path):
    """The suite document at `path` (a suite.json), checked for its
    structure and types (ssbench.suite.folder); StatsFileError in one
    line naming the field otherwise."""
    try:
        return suitefolder.read_document(path)
    except suitefolder.SuiteFolderError as exc:
        raise StatsFileError('%s' % (exc,))


def refigured(path, request):
    """The suite document at `path` with every step's figures (and
    steadiness) computed again from its stats file, judged by --slo;
    UsageError for a step whose stats file is not its own (see
    ssbench.suite.folder)."""
    from ssbench.report.compute.analyze import analyze
    from ssbench.report.compute.suitefigures import step_figures
    from ssbench.report import slo
    from ssbench.results.statsreader import open_stats
    doc = read_suite(path)
    folder = os.path.dirname(path)
    for step in doc['steps']:
        for key in ('figures', 'slo', 'slo_too_few', 'steady'):
            step.pop(key, None)
        try:
            stats = suitefolder.step_stats(folder, doc, step)
            if stats is None:
                continue
            stats_file = open_stats(stats)
            suitefolder.check_header(stats_file, doc, step)
        except suitefolder.SuiteFolderError as exc:
            raise UsageError('%s' % (exc,))
        analysis = analyze(stats_file, request.percentiles(),
                           skip=request.skip_for(stats_file))
        step['stats_file'] = stats
        step['figures'] = step_figures(analysis)
        steady = suitefolder.steady_of(stats_file)
        if steady is not None:
            step['steady'] = steady
        if request.objectives:
            step['slo'] = slo.missed(analysis, request.objectives)
            step['slo_too_few'] = slo.too_few(analysis, request.objectives)
    return doc


def _html(doc, request, out):
    """--html of a suite: its page, linking the steps' files from its
    folder."""
    from ssbench.report.render.suitehtml import render_suite_html
    folder = None if request.html_path == STDOUT else os.path.dirname(
        os.path.abspath(request.html_path))
    render_suite_html(doc, out, request.objectives, page_dir=folder)


def write_suite_reports(path, request, write_outputs):
    """report-scenario of the suite at `path` (a suite.json): its table
    (or the comparison with --compare, or with --summary a line per
    step), --json and --html, given to
    write_outputs([(path, what, mode, write)]); the exit status (3 when a
    step missed an --slo objective)."""
    if request.rps_histogram or request.csv_output or request.errors or \
            request.bandwidth or request.rules or request.hdr_log:
        raise UsageError('a suite is reported as its table, --json and '
                         '--html (and --slo, --compare); report a step\'s '
                         'stats file for -r, --csv, --errors, --bandwidth, '
                         '--hdr-log and --fail-if')
    doc = refigured(path, request)
    outputs = []
    if request.compare_base:
        from ssbench.report.compute.suitefigures import compare_suites
        from ssbench.report.render.suitetable import render_comparison
        base_path = suite_file(request.compare_base)
        if base_path is None:
            raise UsageError('--compare with a suite needs a base suite '
                             '(its folder or suite.json), not %s'
                             % (request.compare_base,))
        base = refigured(base_path, request)
        rows = compare_suites(base, doc)
        outputs.append((request.report_path, 'report file', 'w', lambda out:
                        render_comparison(base['name'], doc['name'], rows,
                                          out)))
    elif request.summary:
        if request.text_report:
            from ssbench.report.render.headline import suite_lines, write_lines
            outputs.append((request.report_path, 'report file', 'w',
                            lambda out: write_lines(
                                out, lambda micro: suite_lines(doc, micro))))
    elif request.text_report:
        from ssbench.report.render.suitetable import render_table
        outputs.append((request.report_path, 'report file', 'w',
                        lambda out: render_table(doc, out)))
    write_outputs(outputs + request.document_outputs(
        doc, lambda out: _html(doc, request, out)))
    missed = [(step['step'], line) for step in doc['steps']
              for line in step.get('slo') or ()]
    for number, line in missed:
        log.error('step %d: --slo %s', number, line)
    for step in doc['steps']:
        for line in step.get('slo_too_few') or ():
            log.warning('step %d: --slo %s', step['step'], line)
    if missed:
        from ssbench.report.slo import MISSED_EXIT
        return MISSED_EXIT
    return 0
