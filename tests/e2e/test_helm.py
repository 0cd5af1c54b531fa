"""The Helm chart (deploy/helm/ssbench) for real, without a cluster:
`helm lint` and `helm template` of its variants; every container command
it renders is one the CLI's own parsers accept, and carries no
credential; and its rendered manifests run under `podman kube play`
against the local Swift.

podman runs Pods, not StatefulSets, Jobs or Services, and does not expand
$(VAR) in commands: the test does what Kubernetes would (kube_pods()):
a Pod per StatefulSet ordinal, labelled with its pod-index as the
StatefulSet controller labels it, the Job's pod, $(VAR) expanded from the
container's environment, and the host's network in place of the master's
Service (the workers are pointed at 127.0.0.1 with workers.masterHost).

Helm is tools/helm's (built from the Go module proxy once); without Go
the tests are skipped (SSBENCH_REQUIRE_HELM=1, as in CI, fails them).
Python 3 suite only, like tests/e2e/podman.py."""
from __future__ import absolute_import, division, print_function

import base64
import copy
import gzip
import json
import os
import re
import sys
import uuid

import pytest

from tests.e2e import podman, support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

CHART = os.path.join(support.ROOT, 'deploy', 'helm', 'ssbench')
HELM = os.path.join(support.ROOT, 'tools', 'helm')
SCENARIO = os.path.join(support.ROOT, 'scenarios', 'very_small.scenario')
HELM_BUILD_TIMEOUT = 1500
OPS = 60
# What a rendered command may never hold.
SECRETS = ('sEcReT-KeY', 'sEcReT-PaSs')


@pytest.fixture(scope='module')
def helm():
    if sys.version_info < (3, 8):
        pytest.skip('the chart tests run in the Python 3 suite')
    ran = support.run([HELM, 'version', '--short'], HELM_BUILD_TIMEOUT + 60)
    if ran.status != 0:
        reason = 'no helm (tools/helm builds it with Go): %s' % (
            ran.err.strip().splitlines() or [''])[-1]
        sys.stderr.write('SKIP: %s\n' % reason)
        if os.environ.get('SSBENCH_REQUIRE_HELM') == '1':
            pytest.fail(reason)
        pytest.skip(reason)
    return HELM


def value_args(values, files=None):
    argv = []
    for key, value in sorted(values.items()):
        argv += ['--set-json', '%s=%s' % (key, json.dumps(value))]
    for key, path in sorted((files or {}).items()):
        argv += ['--set-file', '%s=%s' % (key, path)]
    return argv


def render(helm, release, values, files=None):
    """The chart's manifests (dicts) for these values."""
    import yaml
    ran = support.run([helm, 'template', release, CHART] +
                      value_args(values, files), 120)
    assert ran.status == 0, ran
    return [doc for doc in yaml.safe_load_all(ran.out) if doc]


def pod_specs(docs):
    """(kind, pod spec) of every workload."""
    for doc in docs:
        if doc['kind'] in ('StatefulSet', 'Job', 'Deployment', 'Pod'):
            spec = doc['spec'] if doc['kind'] == 'Pod' else \
                doc['spec']['template']['spec']
            yield doc['kind'], spec


def containers_of(spec):
    return spec.get('initContainers', []) + spec['containers']


def by_kind(docs, kind):
    return [doc for doc in docs if doc['kind'] == kind]


SCENARIO_FILES = {'master.scenario': SCENARIO}
VARIANTS = {
    'defaults': ({}, SCENARIO_FILES),
    'everything': ({'curve.enabled': True, 'curve.existingSecret': 'keys',
                    'results.upload.enabled': True,
                    'workers.oneWorkerPerNode': True,
                    'workers.replicas': 5, 'workers.concurrency': 8,
                    'workers.processes': 'auto',
                    'workers.resources': {'limits': {'cpu': '2'}},
                    'auth.env': {'ST_AUTH': 'http://swift/auth/v1.0',
                                 'ST_USER': 'u', 'ST_KEY': SECRETS[0]},
                    'master.extraArgs': ['-o', '1000', '--html',
                                         '$(RUN_DIR)/report.html']},
                   SCENARIO_FILES),
    # A suite file whose steps run the ConfigMap's scenario.json.
    'suite-file': ({'master.command': 'run-suite',
                    'master.suite': json.dumps({
                        'name': 'curve',
                        'defaults': {'scenario': 'scenario.json',
                                     'run_seconds': 10},
                        'sweep': {'user_count': [1, 2]}})},
                   SCENARIO_FILES),
    'suite': ({'master.command': 'run-suite',
               'master.extraArgs': ['-u', '1,2'],
               'auth.env': {'OS_AUTH_URL': 'http://keystone/v3',
                            'OS_USERNAME': 'u',
                            'OS_PASSWORD': SECRETS[1]}}, SCENARIO_FILES),
}


def expand(argv, env):
    """argv with Kubernetes' $(NAME) references replaced from env."""
    return [re.sub(r'\$\(([A-Za-z_][A-Za-z0-9_]*)\)',
                   lambda m: env.get(m.group(1), m.group(0)), arg)
            for arg in argv]


def parse_command(argv):
    """Whether ssbench's own parser accepts argv (an image command)."""
    from ssbench.cli import masterparser, worker
    if argv[0] == 'ssbench-master':
        return masterparser.build_parser().parse(argv[1:])[0] is not None
    if argv[0] == 'ssbench-worker':
        return worker.build_parser().parse(argv[1:])[0] is not None
    if argv[:2] == ['python3', '/config/upload.py']:
        return len(argv) == 5
    return False


@pytest.mark.parametrize('variant', sorted(VARIANTS))
def test_lint(helm, variant):
    values, files = VARIANTS[variant]
    ran = support.run([helm, 'lint', '--strict', CHART] +
                      value_args(values, files), 120)
    assert ran.status == 0, ran


def test_lint_refuses_a_chart_without_a_scenario(helm):
    ran = support.run([helm, 'template', 'x', CHART], 120)
    assert ran.status != 0
    assert 'master.scenario is empty' in ran.err, ran


@pytest.mark.parametrize('variant', sorted(VARIANTS))
def test_every_rendered_command_is_accepted(helm, variant, capsys):
    values, files = VARIANTS[variant]
    docs = render(helm, 'rel', values, files)
    commands = 0
    for _, spec in pod_specs(docs):
        for container in containers_of(spec):
            env = dict((e['name'], e.get('value', '7'))
                       for e in container.get('env', []))
            argv = expand(container['command'] + container.get('args', []),
                          env)
            assert parse_command(argv), (argv, capsys.readouterr().err)
            assert not [a for a in argv if '$(' in a], argv
            for secret in SECRETS:
                assert secret not in ' '.join(argv)
            commands += 1
    assert commands >= 2


def test_what_the_chart_renders(helm):
    values, files = VARIANTS['everything']
    docs = render(helm, 'rel', values, files)
    workers, = by_kind(docs, 'StatefulSet')
    job, = by_kind(docs, 'Job')
    service, = by_kind(docs, 'Service')
    pvc, = by_kind(docs, 'PersistentVolumeClaim')
    secret, = by_kind(docs, 'Secret')
    assert workers['spec']['replicas'] == 5
    spec = workers['spec']['template']['spec']
    worker = spec['containers'][0]
    # The worker id is the pod's ordinal.
    assert worker['command'][-1] == '$(WORKER_ID)'
    assert worker['env'][0]['valueFrom']['fieldRef']['fieldPath'] == \
        "metadata.labels['apps.kubernetes.io/pod-index']"
    anti = spec['affinity']['podAntiAffinity'][
        'requiredDuringSchedulingIgnoredDuringExecution'][0]
    assert anti['topologyKey'] == 'kubernetes.io/hostname'
    assert worker['resources'] == {'limits': {'cpu': '2'}}
    # The workers get no master secret key.
    curve, = [v for v in spec['volumes'] if v['name'] == 'curve']
    assert [i['key'] for i in curve['secret']['items']] == [
        'master.key', 'worker.key_secret']
    # The master runs first, then the upload; credentials from the Secret.
    pod = job['spec']['template']['spec']
    assert [c['name'] for c in pod['initContainers']] == ['master']
    assert [c['name'] for c in pod['containers']] == ['upload']
    for container in containers_of(pod):
        assert container['envFrom'] == [
            {'secretRef': {'name': secret['metadata']['name']}}]
    assert secret['stringData']['ST_KEY'] == SECRETS[0]
    assert pod['volumes'][1]['persistentVolumeClaim']['claimName'] == \
        pvc['metadata']['name']
    assert pod['securityContext']['runAsNonRoot'] is True
    annotations = service['metadata']['annotations']
    assert annotations['prometheus.io/scrape'] == 'true'
    assert annotations['prometheus.io/port'] == '9100'
    assert [p['name'] for p in service['spec']['ports']] == [
        'zmq-work', 'zmq-results', 'metrics']


# --- podman kube play -----------------------------------------------------

def kube_pods(docs):
    """The manifests podman kube play runs: a Pod per StatefulSet ordinal
    and one for the Job, on the host's network, with $(VAR) expanded;
    Services dropped; Secrets' stringData in their data."""
    out = []
    for doc in docs:
        kind = doc['kind']
        if kind == 'Service':
            continue
        if kind == 'Secret' and 'stringData' in doc:
            # The API server stores stringData as data; podman reads data.
            doc = copy.deepcopy(doc)
            data = doc.setdefault('data', {})
            for key, value in doc.pop('stringData').items():
                data[key] = base64.b64encode(
                    value.encode('utf-8')).decode('ascii')
        if kind not in ('StatefulSet', 'Job'):
            out.append(doc)
            continue
        template = doc['spec']['template']
        count = doc['spec']['replicas'] if kind == 'StatefulSet' else 1
        for index in range(count):
            pod = {'apiVersion': 'v1', 'kind': 'Pod',
                   'metadata': copy.deepcopy(template['metadata']),
                   'spec': copy.deepcopy(template['spec'])}
            name = doc['metadata']['name']
            if kind == 'StatefulSet':
                name = '%s-%d' % (name, index)
                pod['metadata']['labels'][
                    'apps.kubernetes.io/pod-index'] = str(index)
            pod['metadata']['name'] = name
            # Keep init containers once run (podman removes them), for
            # their logs, as Kubernetes does.
            pod['metadata'].setdefault('annotations', {})[
                'io.podman.annotations.init.container.type'] = 'always'
            pod['spec']['hostNetwork'] = True
            labels = pod['metadata']['labels']
            for container in containers_of(pod['spec']):
                env = {}
                for item in container.get('env', []):
                    if 'value' in item:
                        env[item['name']] = item['value']
                    else:
                        path = item['valueFrom']['fieldRef']['fieldPath']
                        key = re.match(r"metadata\.labels\['(.*)'\]$",
                                       path).group(1)
                        env[item['name']] = labels[key]
                container['command'] = expand(container['command'], env)
            out.append(pod)
    return out


def names_of(docs, kind):
    return [doc['metadata']['name'] for doc in docs if doc['kind'] == kind]


def test_the_rendered_chart_under_podman_kube_play(helm, container_image,
                                                   tmpdir):
    support.require_swift()
    release = 'e2e%s' % uuid.uuid4().hex[:6]
    upload_to = '%s_results' % release
    ports = [support.free_port() for _ in range(3)]
    scenario, data = support.write_scenario(tmpdir, user_count=4)
    docs = render(helm, release, {
        'image.repository': container_image.split(':')[0],
        'image.tag': container_image.split(':')[1],
        'image.pullPolicy': 'Never',
        'ports.work': ports[0], 'ports.results': ports[1],
        'ports.metrics': ports[2],
        'workers.masterHost': '127.0.0.1',
        'workers.concurrency': 2,
        'workers.masterTimeout': 120,
        'auth.env': {'ST_AUTH': support.AUTH_URL, 'ST_USER': support.USER,
                     'ST_KEY': support.KEY},
        'results.upload.enabled': True,
        'results.upload.container': upload_to,
        'master.extraArgs': ['-o', str(OPS)],
    }, {'master.scenario': scenario})
    play = kube_pods(docs)
    # podman 4.3 stores a Secret of the manifests as YAML and then fails
    # to read it back as JSON: the test makes the secrets itself, as the
    # JSON object of their data that podman reads.
    secrets = [doc for doc in play if doc['kind'] == 'Secret']
    play = [doc for doc in play if doc['kind'] != 'Secret']
    manifest = str(tmpdir.join('play.yaml'))
    with open(manifest, 'w') as fp:
        fp.write('---\n'.join(json.dumps(doc) + '\n' for doc in play))
    pods = names_of(play, 'Pod')
    master_pod, = [name for name in pods if '-master-' in name]
    volume, = names_of(play, 'PersistentVolumeClaim')
    swift = support.SwiftView()
    try:
        for doc in secrets:
            path = str(tmpdir.join(doc['metadata']['name'] + '.json'))
            with open(path, 'w') as fp:
                json.dump(doc['data'], fp)
            ran = podman.podman(['secret', 'create',
                                 doc['metadata']['name'], path])
            assert ran.status == 0, ran
        ran = podman.podman(['kube', 'play', manifest], 300)
        assert ran.status == 0, ran
        # The upload runs once the master (its init container) succeeded.
        waited = podman.podman(['wait', master_pod + '-upload'], 600)
        assert waited.out.strip() == '0', (
            waited, podman.podman(['logs', master_pod + '-master']),
            podman.podman(['logs', master_pod + '-upload']))
        logs = podman.podman(['logs', master_pod + '-master'])
        assert 'TOTAL\n       Count:    %d (    0 error;' % OPS in logs.out, \
            logs
        assert 'Worker count:   2' in logs.out, logs
        mount = podman.podman(['volume', 'inspect', '--format',
                               '{{.Mountpoint}}', volume]).out.strip()
        run = '%s-1' % release
        stats = os.path.join(mount, run, 'run.stat.gz')
        found = support.read_results(stats)
        assert len(found) == OPS
        assert set(r['worker_id'] for r in found) == set([0, 1])
        # ... and the same file in the object store.
        assert swift.objects(upload_to) == [run + '/run.stat.gz']
        with open(stats, 'rb') as fp:
            assert gzip.decompress(fp.read())
    finally:
        down = podman.podman(['kube', 'down', manifest], 300)
        left = podman.podman(['ps', '--all', '--format', '{{.Names}}'], 60)
        # What kube down keeps: the volumes (the claim's and the
        # ConfigMap's) and the Secret.
        podman.podman(['volume', 'rm', '--force', volume,
                       release + '-ssbench-config'], 120)
        for doc in secrets:
            podman.podman(['secret', 'rm', doc['metadata']['name']], 120)
        swift.delete_everything(release)
        swift.delete_everything(data['container_base'] + '_')
    assert down.status == 0, down
    assert [name for name in left.out.split()
            if name.startswith(release)] == []
