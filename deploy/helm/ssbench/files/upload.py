"""Upload one run's files to Swift once the master has ended (the chart's
results.upload; docs/kubernetes.rst), so that they outlive the Job.

usage: python3 upload.py CONTAINER ROOT RUN
Every file under ROOT/RUN becomes the object RUN/PATH of CONTAINER (made
if missing).  Authenticates as ssbench does from the environment, v1.0
(ST_AUTH, ST_USER, ST_KEY) or a token (OS_STORAGE_URL and OS_AUTH_TOKEN);
the standard library only.  One line on stderr and status 1 on failure.
"""
import os
import sys
from urllib.parse import quote
from urllib.request import Request, urlopen

TIMEOUT = 60


def authenticate(env):
    """(storage URL, token) from the environment."""
    if env.get('OS_STORAGE_URL') and env.get('OS_AUTH_TOKEN'):
        return env['OS_STORAGE_URL'], env['OS_AUTH_TOKEN']
    if not (env.get('ST_AUTH') and env.get('ST_USER') and env.get('ST_KEY')):
        raise ValueError('no credentials: set ST_AUTH, ST_USER and ST_KEY '
                         '(or OS_STORAGE_URL and OS_AUTH_TOKEN)')
    req = Request(env['ST_AUTH'], headers={'X-Auth-User': env['ST_USER'],
                                           'X-Auth-Key': env['ST_KEY']})
    with urlopen(req, timeout=TIMEOUT) as resp:
        return resp.headers['X-Storage-Url'], resp.headers['X-Auth-Token']


def put(url, token, path=None):
    """PUT url (a container, or the object of the file at path)."""
    headers = {'X-Auth-Token': token}
    if path is None:
        headers['Content-Length'] = '0'
        req = Request(url, data=b'', headers=headers, method='PUT')
        urlopen(req, timeout=TIMEOUT).close()
        return
    with open(path, 'rb') as body:
        headers['Content-Length'] = str(os.fstat(body.fileno()).st_size)
        req = Request(url, data=body, headers=headers, method='PUT')
        urlopen(req, timeout=TIMEOUT).close()


def main(argv, env):
    if len(argv) != 3:
        sys.stderr.write('usage: upload.py CONTAINER ROOT RUN\n')
        return 2
    container, root, run = argv
    folder = os.path.join(root, run)
    if not os.path.isdir(folder):
        sys.stderr.write('upload: no folder %s: nothing to upload\n' % folder)
        return 1
    try:
        storage_url, token = authenticate(env)
        base = '%s/%s' % (storage_url.rstrip('/'), quote(container, safe=''))
        put(base, token)
        count = 0
        for parent, _, names in os.walk(folder):
            for name in sorted(names):
                path = os.path.join(parent, name)
                rel = os.path.relpath(path, root).replace(os.sep, '/')
                put('%s/%s' % (base, quote(rel)), token, path)
                count += 1
    except (OSError, ValueError) as exc:
        sys.stderr.write('upload: %s\n' % exc)
        return 1
    print('upload: %d files of %s in container %s' % (count, folder,
                                                      container))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:], os.environ))
