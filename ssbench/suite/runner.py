"""A suite's steps run one after another (see docs/suites.rst): each
step's scenario loaded with its settings, then after each step its
figures (ssbench.report.compute.suitefigures) and whether it is complete
go to suite.json in the suite's folder (ssbench.suite.savefile), so an
interrupted suite keeps every finished step and the partial one, and
--resume runs only what is missing (ssbench.suite.resume), its figures
of the steps done computed again from their stats files.  The command
line's checks and connections are ssbench.cli.runsuite's.
"""
from __future__ import absolute_import, division, print_function

import logging
import sys
import uuid

from ssbench.results.safefiles import STDOUT
from ssbench.suite import folder as suitefolder, plan as suiteplan
from ssbench.suite.capacitysearch import steps_text

log = logging.getLogger('ssbench')


class Step(object):
    """A planned step with its scenario loaded and its files named."""

    def __init__(self, plan, scenario, stats_path, options_rate,
                 batch_size):
        self.plan = plan
        self.scenario = scenario
        self.stats_path = stats_path
        self.rate = options_rate
        self.batch_size = batch_size

    def entry(self):
        """Its suite.json entry before it runs."""
        return {'step': self.plan.number, 'label': self.plan.label(),
                'scenario': self.plan.scenario,
                'settings': dict(self.plan.settings),
                'stats_file': self.stats_path, 'complete': False}


def load_step(args, plan, folder, suite):
    """A Step: the plan's scenario read with its settings over the
    command line's (ScenarioError naming the file when it is bad)."""
    from ssbench.load import scenario as scenario_mod
    settings = plan.settings

    def one(setting, attr):
        value = settings.get(setting)
        if value is None:
            value = getattr(args, attr, None)
            if isinstance(value, list):
                value = value[0] if len(value) == 1 else None
        return value

    scenario = scenario_mod.load_scenario(plan.scenario, {
        'user_count': one('user_count', 'user_count'),
        'operation_count': one('operation_count', 'op_count'),
        'run_seconds': one('run_seconds', 'run_seconds'),
        'container_count': one('container_count', 'container_count'),
        'delete_after': one('delete_after', 'delete_after'),
        'policy': one('policy', 'policy'),
        'container_base': args.container_base,
        'block_size': args.block_size, 'segment_size': args.segment_size})
    batch_size = min(one('batch_size', 'batch_size') or 1,
                     scenario.user_count)
    return Step(plan, scenario, suiteplan.stats_path(folder, suite, plan),
                one('rate', 'rate'), batch_size)


# SuiteRunner's suite_id for a suite run for the first time: a new one.
NEW = object()


class SuiteRunner(object):
    """Runs the steps through one SuiteRun, writing suite.json before
    and after each, then the table and the suite's --json and --html.

    `done` maps the numbers of the steps an earlier run completed to
    their (checked) stats files; `suite_id` is the earlier run's id (None
    when its suite.json had none), which every step's stats header
    repeats."""

    def __init__(self, args, suite, folder, steps, done, objectives,
                 suite_id=NEW):
        from ssbench.suite.savefile import SuiteFile
        self.args = args
        self.suite = suite
        self.folder = folder
        self.steps = steps
        self.objectives = objectives
        self.id = uuid.uuid4().hex if suite_id is NEW else suite_id
        self.entries = [step.entry() for step in steps]
        for entry in self.entries:
            if entry['step'] in done:
                entry['stats_file'] = done[entry['step']]
                entry['complete'] = True
        self.search = None
        self.suite_file = SuiteFile(folder)

    def report_done(self):
        """The figures of the steps an earlier run completed (see
        _report_done)."""
        for entry in self.entries:
            if entry['complete']:
                self._report_done(entry)

    def step_title(self, number):
        """How the log names step `number`: 'Step 2/5'."""
        return 'Step %d/%d' % (number, len(self.steps))

    def size_text(self):
        """The suite's size, for its first log line: '5 steps'."""
        return steps_text(len(self.steps))

    def run_steps(self, suite_run, live, options, check_steps):
        """Run the steps not done yet through `suite_run` (a
        ssbench.suite.sharedworkers.SuiteRun); the outcome of the last one
        run (None when none ran).  `options` are the RunOptions keywords
        every step shares; check_steps(steps) refuses steps chosen while
        the suite runs."""
        outcome = None
        for index, step in enumerate(self.steps):
            entry = self.entries[index]
            if entry.get('complete'):
                log.info('%s (%s): complete already, in %s',
                         self.step_title(step.plan.number),
                         entry['label'] or '-', entry['stats_file'])
                continue
            outcome = self._run_step(suite_run, live, options, step, index)
            if not self.entries[index]['complete']:
                break
        return outcome

    def _run_step(self, suite_run, live, options, step, index):
        from ssbench.master.scenariorun import RunOptions
        from ssbench.suite import steadystate
        from ssbench.results.safefiles import StatsPaths
        args = self.args
        number, total = step.plan.number, len(self.steps)
        # Saved before the step too: a step that fills the disk or kills
        # the master leaves suite.json saying which it was.
        self._save()
        log.info('%s (%s): %s', self.step_title(number),
                 step.plan.label() or '-', step.plan.scenario)
        if live is not None:
            live.step = (number, total, step.plan.label())
        watch = None
        if args.until_steady:
            watch = steadystate.over(args.steady_seconds,
                                     args.steady_tolerance, args.warmup)
        header = {'suite': {'name': self.suite.name, 'step': number,
                            'steps': total, 'label': step.plan.label()}}
        if self.id is not None:
            header['suite']['id'] = self.id
        if watch is not None:
            # The step's -r or -o is a ceiling: ending before it is no
            # early end.
            header['until_steady'] = True
        run_options = RunOptions(
            batch_size=step.batch_size, seed=args.seed, rate=step.rate,
            arrival=args.arrival, warmup=args.warmup, header_extra=header,
            watch=watch, **options)
        outcome = suite_run.run_step(step.scenario,
                                     StatsPaths(step.stats_path), run_options)
        entry = self.entries[index]
        entry['stats_file'] = outcome.stats_path
        entry['complete'] = bool(outcome.finalized and not outcome.interrupted
                                 and outcome.error is None)
        if outcome.error is not None:
            entry['error'] = '%s' % (outcome.error,)
        if watch is not None:
            entry['steady'] = {'steady': watch.steady,
                               'after': watch.steady_after,
                               'why': watch.verdict.why}
        if outcome.finalized:
            self._report_step(entry)
        self._save()
        return outcome

    def _report_done(self, entry):
        """A step an earlier run completed: its figures, objectives,
        page and steadiness, from its stats file (never from
        suite.json)."""
        stats_file = self._report_step(entry)
        steady = suitefolder.steady_of(stats_file)
        if steady is not None:
            entry['steady'] = steady

    def _report_step(self, entry):
        """The step's figures, objectives and own HTML page, from its
        stats file (a statsreader.StatsFile, returned)."""
        from ssbench.report.compute.analyze import DEFAULT_PERCENTILES, \
            analyze
        from ssbench.report.compute.suitefigures import step_figures
        from ssbench.report import slo
        from ssbench.results.statsreader import open_stats
        percentiles = list(DEFAULT_PERCENTILES)
        if self.objectives:
            percentiles += [p for p in slo.percentiles_of(self.objectives)
                            if p not in percentiles]
        stats_file = open_stats(entry['stats_file'])
        doc = analyze(stats_file, percentiles, skip=self.args.warmup)
        entry['figures'] = step_figures(doc)
        from ssbench.report.render.headline import headline, micro_sign
        log.info('Step %d: %s', entry['step'],
                 headline(entry['figures'], micro_sign(sys.stderr)))
        if self.objectives is not None:
            entry['slo'] = slo.missed(doc, self.objectives)
            entry['slo_too_few'] = slo.too_few(doc, self.objectives)
            for line in entry['slo'] + entry['slo_too_few']:
                log.warning('Step %d: --slo %s', entry['step'], line)
        if self.args.html_file:
            from ssbench.report.render.html import render_html
            from ssbench.results import safefiles
            path = _without_gz(entry['stats_file']) + '.html'
            js_src = self._js_src(path)
            with safefiles.atomic_output(path, 'HTML file') as out:
                render_html(doc, out, js_src)
            entry['html'] = path
        return stats_file

    def _js_src(self, page):
        """Where the page at `page` reads plotly.js: None (inlined) with
        --html-inline or on standard output, else the one copy in the
        suite's folder."""
        if self.args.html_inline or page == STDOUT:
            return None
        from ssbench.report.render.html import shared_js_src
        return shared_js_src(page, self.folder)

    def document(self):
        """The suite document: suite.json's content, with the suite's id
        and the options that make what its steps measure (checked on
        --resume)."""
        from ssbench.suite.resume import step_options
        from ssbench.report.compute.suitefigures import suite_document
        doc = suite_document(self.suite.name, self.entries, self.search)
        if self.id is not None:
            doc['id'] = self.id
        doc['options'] = step_options(self.args)
        return doc

    def _save(self):
        """suite.json, replaced whole before and after every step."""
        self.suite_file.save(self.document())

    def finish(self, outcome, write_outputs):
        """The table and the suite's outputs, given to
        write_outputs([(path, what, mode, write)]); the exit status."""
        args = self.args
        doc = self.document()
        complete = [e['step'] for e in self.entries if e.get('complete')]
        log.info('Suite results saved in %s: %d of %s complete',
                 self.folder, len(complete), steps_text(len(self.entries)))
        partial = [e['step'] for e in self.entries
                   if not e.get('complete') and e.get('figures')]
        if partial:
            log.warning('Step %s stopped before its end: its stats file '
                        'holds what it measured; --resume --suite-dir %s '
                        'runs it again with the steps not run',
                        ', '.join('%d' % n for n in partial), self.folder)
        from ssbench.report.render.jsonfile import write_json
        outputs = []
        if args.json_file:
            outputs.append((args.json_file, 'JSON file', 'w',
                            lambda out: write_json(doc, out)))
        if args.html_file:
            from ssbench.report.render.suitehtml import render_suite_html
            js_src = self._js_src(args.html_file)
            outputs.append((args.html_file, 'HTML file', 'w',
                            lambda out: render_suite_html(
                                doc, out, self.objectives, js_src,
                                _folder_of(args.html_file))))
        to_stdout = STDOUT in (args.json_file, args.html_file)
        if not args.no_default_report and not to_stdout:
            from ssbench.report.render.suitetable import render_table
            from ssbench.report.compute.metricnames import OPERATIONS
            operations = OPERATIONS if args.per_operation else ('total',)
            outputs.append((STDOUT, 'table', 'w',
                            lambda out: render_table(doc, out, operations)))
        write_outputs(outputs)
        return self._status(outcome)

    def _status(self, outcome):
        if outcome is not None and outcome.error is not None:
            log.error('%s', outcome.error)
            return outcome.error.exit_status
        if outcome is not None and outcome.interrupted:
            return 130
        if self.search is None and any(e.get('slo') for e in self.entries):
            from ssbench.report.slo import MISSED_EXIT
            return MISSED_EXIT
        return 0


def _folder_of(page):
    """The folder of a page's path (None for standard output)."""
    import os
    return None if page == STDOUT else os.path.dirname(os.path.abspath(page))


def _without_gz(path):
    return path[:-3] if path.endswith('.gz') else path
