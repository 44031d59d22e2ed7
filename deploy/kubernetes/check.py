#!/usr/bin/env python3
"""The fields the manifests under deploy/kubernetes must have, beyond what
the Kubernetes schemas require: probes on the gateway's /healthz and
/readyz, requests and limits, a locked-down security context, a config that
listens where the probes and Services look, Services, autoscaler and
disruption budget that select the pods, and a sidecar whose Service leads
to terse. Prints every problem found and exits 1 if there is one.

    python3 deploy/kubernetes/check.py [DIR]    (needs PyYAML)
"""

import pathlib
import sys
import tomllib

import yaml

CONFIG_DIR = "/etc/terse"
problems = []


def need(condition, where, what):
    if not condition:
        problems.append(f"{where}: {what}")


def port_of(address):
    return int(address.rsplit(":", 1)[1])


def matches(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def seconds(duration):
    units = {"ms": 0.001, "s": 1, "m": 60}
    for unit in sorted(units, key=len, reverse=True):
        if duration.endswith(unit) and duration[: -len(unit)].isdigit():
            return int(duration[: -len(unit)]) * units[unit]
    raise ValueError(f"not a duration: {duration!r}")


def check_terse(where, pod, container, configs):
    """One terse container and the pod around it."""
    pod_security = pod.get("securityContext", {})
    security = container.get("securityContext", {})
    need(security.get("runAsNonRoot", pod_security.get("runAsNonRoot")) is True, where, "runAsNonRoot: true")
    need(security.get("runAsUser", pod_security.get("runAsUser", 0)) != 0, where, "a non-root runAsUser")
    need(security.get("allowPrivilegeEscalation") is False, where, "allowPrivilegeEscalation: false")
    need(security.get("readOnlyRootFilesystem") is True, where, "readOnlyRootFilesystem: true")
    need("ALL" in security.get("capabilities", {}).get("drop", []), where, "capabilities drop ALL")
    resources = container.get("resources", {})
    for kind in ("requests", "limits"):
        for resource in ("cpu", "memory"):
            need(resource in resources.get(kind, {}), where, f"resources.{kind}.{resource}")
    ports = {p.get("name"): p["containerPort"] for p in container.get("ports", [])}
    probe_ports = set()
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        get = container.get(probe, {}).get("httpGet", {})
        need(get.get("path") == path, where, f"{probe} on {path}")
        port = ports.get(get.get("port"), get.get("port"))
        probe_ports.add(port)
        need(port in ports.values(), where, f"{probe} on a port the container declares")
    args = container.get("args", [])
    need(args[:1] == ["gateway"] and f"{CONFIG_DIR}/terse.toml" in args, where, f"args: gateway --config {CONFIG_DIR}/terse.toml")
    mounts = [m for m in container.get("volumeMounts", []) if m.get("mountPath") == CONFIG_DIR]
    need(len(mounts) == 1 and mounts[0].get("readOnly") is True, where, f"the config mounted read-only at {CONFIG_DIR}")
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    volume = volumes.get(mounts[0]["name"], {}) if mounts else {}
    config = configs.get(volume.get("configMap", {}).get("name"))
    need(config is not None, where, "the config volume is a ConfigMap with terse.toml")
    if config is None:
        return ports, None
    gateway = config.get("gateway", {})
    need(gateway.get("listen", "").startswith("0.0.0.0:"), where, "the config listens on 0.0.0.0")
    need(port_of(gateway.get("listen", ":0")) == ports.get("http"), where, "the port named http is the config's listen port")
    need(probe_ports == {port_of(gateway.get("metrics_listen", ":0"))}, where, "the probes' port is the config's metrics_listen port")
    stop = seconds(gateway.get("shutdown_timeout", "30s"))
    pre_stop = container.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
    need(pod.get("terminationGracePeriodSeconds", 30) > stop + pre_stop, where,
         "terminationGracePeriodSeconds above preStop plus shutdown_timeout")
    return ports, gateway


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
    files = sorted(root.rglob("*.yaml"))
    need(files, str(root), "manifests")
    for directory in sorted({f.parent for f in files}):
        docs = [(f.name, d) for f in sorted(directory.glob("*.yaml")) for d in yaml.safe_load_all(f.read_text()) if d]
        kinds = {d["kind"] for _, d in docs}
        configs = {}
        for name, d in docs:
            if d["kind"] == "ConfigMap" and "terse.toml" in d.get("data", {}):
                configs[d["metadata"]["name"]] = tomllib.loads(d["data"]["terse.toml"])
        deployments = {d["metadata"]["name"]: d for _, d in docs if d["kind"] == "Deployment"}
        need(deployments, str(directory), "a Deployment")
        terse_ports = {}
        for name, deployment in deployments.items():
            where = f"{directory.name}/Deployment {name}"
            spec = deployment["spec"]
            pod = spec["template"]["spec"]
            need(matches(spec["selector"]["matchLabels"], spec["template"]["metadata"]["labels"]), where, "the selector matches the pod's labels")
            containers = pod["containers"]
            terse = [c for c in containers if c["name"] == "terse"]
            need(len(terse) == 1, where, "one container named terse")
            if not terse:
                continue
            ports, gateway = check_terse(f"{where} container terse", pod, terse[0], configs)
            terse_ports[name] = ports
            others = [c for c in containers if c["name"] != "terse"]
            if others and gateway:
                # A sidecar: terse forwards over the Pod's loopback to a port of the app.
                upstream = gateway.get("upstream", "")
                app_ports = {p["containerPort"] for c in others for p in c.get("ports", [])}
                need(upstream.startswith(("http://127.0.0.1:", "http://localhost:")) and port_of(upstream) in app_ports,
                     where, "the sidecar's upstream is the app's port on loopback")
        for name, d in docs:
            where = f"{directory.name}/{d['kind']} {d['metadata']['name']}"
            if d["kind"] == "Service":
                selected = [n for n, dep in deployments.items() if matches(d["spec"].get("selector"), dep["spec"]["template"]["metadata"]["labels"])]
                need(len(selected) == 1, where, "selects the pods of one Deployment")
                for port in d["spec"]["ports"] if selected else []:
                    need(port.get("targetPort") in terse_ports.get(selected[0], {}), where, f"port {port['port']} leads to a port of terse")
            elif d["kind"] == "HorizontalPodAutoscaler":
                target = d["spec"]["scaleTargetRef"]
                need(target["kind"] == "Deployment" and target["name"] in deployments, where, "scales a Deployment of this folder")
                need(d["spec"].get("minReplicas", 1) >= 2, where, "minReplicas of 2 or more (the budget keeps one)")
            elif d["kind"] == "PodDisruptionBudget":
                need(any(matches(d["spec"]["selector"]["matchLabels"], dep["spec"]["template"]["metadata"]["labels"]) for dep in deployments.values()),
                     where, "selects a Deployment's pods")
        if directory.name == "gateway":
            for kind in ("ConfigMap", "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"):
                need(kind in kinds, directory.name, f"a {kind}")
        if directory.name == "sidecar":
            need(any(len(d["spec"]["template"]["spec"]["containers"]) >= 2 for d in deployments.values()), directory.name, "a Pod of the app and terse")
            need("Service" in kinds, directory.name, "the app's Service")
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    print(f"{len(files)} manifest files checked: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
