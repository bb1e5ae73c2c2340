"""Keystone v3 calls for scripts/keystone.sh's seed and kubernikus steps: req() against
KS_URL, and a token of the admin user scoped to project admin (KS_ADMIN_PASSWORD)."""
import json
import os
import urllib.error
import urllib.request

B = os.environ["KS_URL"]


def req(m, p, body=None, tok=None):
    """Calls Keystone: (status, headers, JSON body or {"error": text})."""
    h = {"Content-Type": "application/json"}
    if tok:
        h["X-Auth-Token"] = tok
    data = json.dumps(body).encode() if body is not None else None
    r = urllib.request.Request(B + p, data=data, method=m, headers=h)
    try:
        with urllib.request.urlopen(r) as resp:
            raw = resp.read()
            return resp.status, resp.headers, json.loads(raw) if raw else {}
    except urllib.error.HTTPError as e:
        return e.code, e.headers, {"error": e.read().decode()}


def admin_token():
    """A token of user admin (domain Default), scoped to project admin, without catalog."""
    a = {"identity": {"methods": ["password"], "password": {"user": {
        "name": "admin", "domain": {"name": "Default"},
        "password": os.environ["KS_ADMIN_PASSWORD"]}}},
        "scope": {"project": {"name": "admin", "domain": {"name": "Default"}}}}
    s, h, b = req("POST", "/auth/tokens?nocatalog", {"auth": a})
    assert s == 201, (s, b)
    return h["X-Subject-Token"]
