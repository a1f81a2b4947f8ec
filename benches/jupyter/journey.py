"""A person's JupyterLab session as the UI would make its calls, through a proxy.

Usage: journey.py PROXY_URL LAB_URL

Prints `METHOD PATH STATUS` per request, for score.py. Every call must succeed.
"""
import json
import sys

import requests

s = requests.Session()
s.proxies.update({"http": sys.argv[1]})
s.trust_env = False
B = sys.argv[2]


def r(m, p, **kw):
    x = s.request(m, B + p, **kw)
    print(m, p, x.status_code)
    if x.status_code >= 400:
        sys.exit(f"{m} {p}: {x.status_code} {x.text[:200]}")
    return x


r("GET", "/api/status"); r("GET", "/api/me"); r("GET", "/api/kernelspecs")
r("GET", "/api/contents?content=1")
r("GET", "/api/contents/data?content=1")
r("GET", "/api/contents/data/x.csv?content=1&type=file&format=text")
r("GET", "/api/contents/hello.py?content=1")
r("PUT", "/api/contents/hello.py", json={"type": "file", "format": "text", "content": "print(2)"})
r("POST", "/api/contents/hello.py/checkpoints")
cps = r("GET", "/api/contents/hello.py/checkpoints").json()
r("POST", "/api/contents/hello.py/checkpoints/" + cps[0]["id"])
r("DELETE", "/api/contents/hello.py/checkpoints/" + cps[0]["id"])
nb = r("POST", "/api/contents", json={"type": "notebook"}).json()
r("PATCH", "/api/contents/" + nb["path"], json={"path": "analysis.ipynb"})
r("GET", "/api/contents/analysis.ipynb?content=1")
r("PUT", "/api/contents/analysis.ipynb", json={"type": "notebook", "content": {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}})
f = r("POST", "/api/contents/data", json={"type": "file", "ext": ".txt"}).json()
r("GET", "/api/contents/" + f["path"] + "?content=1")
r("DELETE", "/api/contents/" + f["path"])
r("GET", "/api/contents/notes.md?content=1")
r("PUT", "/api/contents/data/y.md", json={"type": "file", "format": "text", "content": "# y"})
r("GET", "/api/contents/data/y.md?content=1")
k = r("POST", "/api/kernels", json={"name": "python3"}).json()
r("GET", "/api/kernels/" + k["id"])
r("POST", "/api/kernels/" + k["id"] + "/interrupt")
r("POST", "/api/kernels/" + k["id"] + "/restart")
r("GET", "/api/kernels")
se = r("POST", "/api/sessions", json={"path": "analysis.ipynb", "name": "analysis.ipynb", "type": "notebook", "kernel": {"name": "python3"}}).json()
r("GET", "/api/sessions/" + se["id"])
r("PATCH", "/api/sessions/" + se["id"], json={"path": "analysis.ipynb", "name": "analysis.ipynb"})
r("GET", "/api/sessions")
t = r("POST", "/api/terminals").json()
r("GET", "/api/terminals/" + t["name"])
r("GET", "/api/terminals")
r("DELETE", "/api/terminals/" + t["name"])
r("DELETE", "/api/sessions/" + se["id"])
r("DELETE", "/api/kernels/" + k["id"])
r("GET", "/api/config/notebook"); r("PATCH", "/api/config/notebook", json={"x": 1}); r("GET", "/api/config/tree")
r("GET", "/lab/api/settings")
for sid in ["@jupyterlab/apputils-extension:themes", "@jupyterlab/notebook-extension:tracker", "@jupyterlab/fileeditor-extension:plugin"]:
    r("GET", "/lab/api/settings/" + sid)
r("PUT", "/lab/api/settings/@jupyterlab/apputils-extension:themes", data=json.dumps({"raw": "{}"}))
r("GET", "/lab/api/workspaces"); r("GET", "/lab/api/workspaces/default")
r("PUT", "/lab/api/workspaces/auto-a", json={"data": {}, "metadata": {"id": "auto-a"}})
r("PUT", "/lab/api/workspaces/auto-b", json={"data": {}, "metadata": {"id": "auto-b"}})
r("GET", "/lab/api/workspaces/auto-a"); r("DELETE", "/lab/api/workspaces/auto-b")
r("GET", "/lab/api/themes/@jupyterlab/theme-light-extension/index.css")
r("GET", "/lab/api/translations"); r("GET", "/lab/api/translations/default")
r("DELETE", "/api/contents/analysis.ipynb")
