"""Small InfraGraph files that reach each limit of the reader: shared by the tests of hostile
InfraGraph files and the input fuzzer."""

from __future__ import annotations


def infrastructure(devices: list, instances: list, edges: list, links: list | None = None
                   ) -> dict:
    return {"name": "x", "devices": devices, "instances": instances, "edges": edges,
            "links": links or []}


def switch(name: str, ports: int) -> dict:
    return {"name": name, "components": [{"name": "port", "choice": "port", "count": ports}]}


def server(name: str, gpus: int, nics: int = 1) -> dict:
    return {"name": name, "components": [{"name": "xpu", "choice": "xpu", "count": gpus},
                                         {"name": "nic", "choice": "nic", "count": nics}]}


def edge(a: str, ca: str, b: str, cb: str, link: str | None = None) -> dict:
    e = {"ep1": {"instance": a, "component": ca}, "ep2": {"instance": b, "component": cb}}
    if link:
        e["link"] = link
    return e


def pair(server_name: str = "s", switch_name: str = "w", *, gpus: int = 8,
         ports: int = 4, servers: int = 1, link_gbps: tuple[str, float] | None = None) -> dict:
    """``servers`` servers of ``gpus`` GPUs, each cabled to a port of one switch."""
    links = [{"name": "l", "physical": {"bandwidth": {link_gbps[0]: link_gbps[1]}}}] \
        if link_gbps else []
    return infrastructure(
        [server("srv", gpus), switch("sw", ports)],
        [{"name": server_name, "device": "srv", "count": servers},
         {"name": switch_name, "device": "sw", "count": 1}],
        [edge(server_name, "nic[0]", f"{switch_name}[0]", f"port[0:{servers}]",
              "l" if links else None)], links)


def alias_bomb(width: int = 9, depth: int = 8) -> str:
    """A YAML file whose one component's custom type is ``width ** depth`` items through
    aliases (587 bytes at 9 x 8)."""
    lines = [f"a0: &a0 [{','.join(['x'] * width)}]"]
    for i in range(1, depth + 1):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + f"""
devices:
- name: s
  components:
  - {{name: xpu, choice: xpu, count: 1, custom: {{type: *a{depth}}}}}
  - {{name: nic, choice: nic, count: 1}}
- name: w
  components:
  - {{name: port, choice: port, count: 4}}
instances:
- {{name: s, device: s, count: 1}}
- {{name: w, device: w, count: 1}}
edges:
- ep1: {{instance: "s[0]", component: "nic[0]"}}
  ep2: {{instance: "w[0]", component: "port[0]"}}
"""


def composed(levels: int = 8, width: int = 12) -> dict:
    """Devices of ``width`` devices of ``width`` ... ``levels`` deep, one accelerator at the
    bottom of each: the top device has ``width ** (levels + 1)`` of them."""
    devs = [{"name": f"l0_{j}", "components": [{"name": "xpu", "choice": "xpu", "count": 1}]}
            for j in range(width)]
    for lv in range(1, levels + 1):
        devs += [{"name": f"l{lv}_{j}", "components": [
            {"name": f"l{lv - 1}_{k}", "choice": "device", "count": 1} for k in range(width)]}
            for j in range(width)]
    devs.append({"name": "top", "components": [
        *({"name": f"l{levels}_{k}", "choice": "device", "count": 1} for k in range(width)),
        {"name": "nic", "choice": "nic", "count": 1}]})
    devs.append(switch("w", 4))
    return infrastructure(devs, [{"name": "t", "device": "top", "count": 1},
                                 {"name": "w", "device": "w", "count": 1}],
                          [edge("t[0]", "nic[0]", "w[0]", "port[0]")])


def deep_paths(size: int = 1000) -> dict:
    """A device of ``size`` devices of ``size`` ... of ``size`` ports, cabled by the path
    ``c2.c1.c0.port`` (size**4 endpoints)."""
    devs = [{"name": "c0", "components": [{"name": "port", "choice": "port", "count": size}]},
            {"name": "c1", "components": [{"name": "c0", "choice": "device", "count": size}]},
            {"name": "c2", "components": [{"name": "c1", "choice": "device", "count": size}]},
            {"name": "big", "components": [{"name": "c2", "choice": "device", "count": size}]},
            switch("w", 4)]
    return infrastructure(devs, [{"name": "b", "device": "big", "count": 1},
                                 {"name": "w", "device": "w", "count": 1}],
                          [edge("b[0]", "c2.c1.c0.port", "w[0]", "port[0]")])


def servers_on_own_switches(n: int) -> dict:
    """``n`` servers, each on its own 2-port switch (461 bytes at 40,000)."""
    return infrastructure([server("s", 1), switch("w", 2)],
                          [{"name": "s", "device": "s", "count": n},
                           {"name": "w", "device": "w", "count": n}],
                          [edge("s", "nic[0]", "w", "port[0]")])
