"""A worker's ear for CURVE handshakes: when it gives up, when it only
logs.  The probe is a stand-in here; test_greeting.py has the real one
and test_transport.py the sockets."""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.wire.curve.handshakes import (HANDSHAKE_FAILURES_LOGGED,
                                           WorkerHandshakes)

WHERE = 'tcp://127.0.0.1:6000'


class Probe(object):
    def __init__(self, answer):
        self.answer = answer
        self.asked = []

    def __call__(self, where):
        self.asked.append(where)
        return self.answer


def test_a_master_greeting_with_null_ends_the_wait(tmpdir):
    probe = Probe('NULL')
    ear = WorkerHandshakes(str(tmpdir), probe=probe)
    ear.seen('failed', WHERE)
    assert probe.asked == [WHERE]
    assert 'greets without CURVE' in str(ear.failure)
    assert 'does the master there run with --zmq-curve-dir?' in str(
        ear.failure)


def test_a_curve_master_is_probed_once_per_run_of_failures(tmpdir, caplog):
    caplog.set_level(logging.DEBUG)
    probe = Probe('CURVE')
    ear = WorkerHandshakes(str(tmpdir), probe=probe)
    for _ in range(HANDSHAKE_FAILURES_LOGGED):
        ear.seen('failed', WHERE)
    assert ear.failure is None
    assert probe.asked == [WHERE]
    assert 'keep failing' in caplog.text
    ear.seen('ok', WHERE)
    ear.seen('failed', WHERE)
    assert probe.asked == [WHERE, WHERE]
    assert ear.failure is None


def test_an_unanswered_probe_keeps_trying(tmpdir):
    ear = WorkerHandshakes(str(tmpdir), probe=Probe(None))
    ear.seen('failed', WHERE)
    assert ear.failure is None


def test_a_protocol_error_needs_no_probe(tmpdir):
    probe = Probe('CURVE')
    ear = WorkerHandshakes(str(tmpdir), probe=probe)
    ear.seen('protocol', WHERE)
    assert probe.asked == []
    assert 'protocol error' in str(ear.failure)


def test_a_refusal_names_the_worker_key(tmpdir):
    ear = WorkerHandshakes(str(tmpdir), probe=Probe('NULL'))
    ear.seen('auth', WHERE)
    assert 'refused this worker\'s CURVE key' in str(ear.failure)
