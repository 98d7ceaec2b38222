# Written by loki (loki_checks::isolate). This interpreter runs the tests of another tree of the
# repository: every import location inside the user's checkout is moved to the same path inside
# that tree, so the tree's code is what runs, not the checkout's. Then the sitecustomize this file
# displaced (if any) runs as usual. At exit, the modules still loaded from the checkout are recorded
# as evidence in the directory loki reads after the run. Configuration: loki_isolate.json beside it.
import sys as _sys


def _loki_isolate():
    import atexit
    import json
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "loki_isolate.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    sep = os.sep
    pairs = [(c.rstrip(sep) or sep, t.rstrip(sep) or sep) for c, t in cfg["pairs"]]
    checkouts = [c for c, _ in pairs]
    trees = [t for _, t in pairs]

    def under(p, root):
        return p == root or p.startswith(root + sep)

    def in_any(p, roots):
        return any(under(p, r) for r in roots)

    # The interpreter's own directories stay where they are even inside the checkout (a .venv
    # there holds the installed dependencies, not the project's code), and so does this file.
    kept = set()
    for p in (
        _sys.prefix,
        _sys.exec_prefix,
        getattr(_sys, "base_prefix", ""),
        getattr(_sys, "base_exec_prefix", ""),
        here,
    ):
        if p:
            for q in (os.path.abspath(p), os.path.realpath(p)):
                if in_any(q, checkouts):
                    kept.add(q.rstrip(sep))
    kept = sorted(kept)

    def moved(p):
        """The tree's path for `p` when `p` lies in the checkout's code, else None."""
        if isinstance(p, os.PathLike):
            p = os.fspath(p)
        if not isinstance(p, str) or not p or not p.startswith(sep):
            return None
        for cand in (p, os.path.realpath(p)):
            if in_any(cand, trees) or in_any(cand, kept):
                return None
            for c, t in pairs:
                if under(cand, c):
                    return t + cand[len(c):]
        return None

    evidence = {"pid": os.getpid(), "argv": _sys.argv[:3], "moved": [], "dropped": [],
                "finders": 0, "leaks": [], "error": None}

    def record():
        leaks = set()
        for m in list(_sys.modules.values()):
            f = getattr(m, "__file__", None)
            if isinstance(f, str) and moved(f) is not None:
                leaks.add(f)
            try:
                for d in list(getattr(m, "__path__", None) or []):
                    if isinstance(d, str) and moved(d) is not None:
                        leaks.add(d)
            except TypeError:
                pass
        evidence["leaks"] = sorted(leaks)
        out = os.path.join(cfg["evidence"], "py-%d.json" % os.getpid())
        try:
            with open(out + ".tmp", "w", encoding="utf-8") as f:
                json.dump(evidence, f)
            os.replace(out + ".tmp", out)
        except OSError:
            pass

    atexit.register(record)
    try:
        _redirect(os, sep, moved, evidence)
    except Exception as e:  # the run must go on; the evidence says isolation broke
        evidence["error"] = "%s: %s" % (type(e).__name__, e)


def _redirect(os, sep, moved, evidence):
    # 1. sys.path: .pth files (setuptools compat mode, legacy `develop` egg-links, hatchling, pdm,
    # poetry) and PYTHONPATH put checkout directories here.
    link_map = {}
    metadata_dirs = []
    new_path = []
    for entry in _sys.path:
        target = moved(entry)
        if target is None:
            new_path.append(entry)
            continue
        _sys.path_importer_cache.pop(entry, None)
        if os.path.isdir(entry) and any(
            n.endswith((".egg-info", ".dist-info")) for n in _listdir(os, entry)
        ):
            metadata_dirs.append(entry)
        if os.path.exists(target):
            if target not in new_path:
                new_path.append(target)
            evidence["moved"].append([entry, target])
            continue
        # Only in the checkout: a build artefact. setuptools' strict editable mode links each
        # module file from a tree under build/; find the sources the links point at.
        found = _link_tree(os, sep, entry, moved)
        if found:
            link_map.update(found)
            evidence["moved"].append([entry, sorted(found.values())])
        else:
            evidence["dropped"].append(entry)
    _sys.path[:] = new_path

    # 2. Import finders with a table of checkout paths (setuptools' __editable__ finders: MAPPING
    # and NAMESPACES; `editables`, used by hatchling: RedirectingFinder._redirections).
    for finder in list(_sys.meta_path):
        modname = getattr(finder, "__module__", None) or ""
        if modname in ("_frozen_importlib", "_frozen_importlib_external", "zipimport", __name__) \
                or modname.startswith("importlib"):
            continue
        spaces = []
        mod = _sys.modules.get(modname)
        if mod is not None:
            spaces.append(vars(mod))
        spaces.append(getattr(finder, "__dict__", {}))
        if not isinstance(finder, type):
            spaces.append(vars(type(finder)))
        for ns in spaces:
            for value in list(ns.values()):
                if isinstance(value, (dict, list)):
                    evidence["finders"] += _rewrite(value, moved)

    # 3. A module imported from the checkout while the .pth files ran is forgotten, so the next
    # import finds the tree's.
    for name, m in list(_sys.modules.items()):
        if moved(getattr(m, "__file__", None)) is not None:
            del _sys.modules[name]

    if link_map:
        _sys.meta_path.insert(0, _make_finder(os, link_map))
    if metadata_dirs:
        # The project's own metadata (egg-info beside the sources) exists only in the checkout:
        # keep it findable by importlib.metadata without putting its directory back on sys.path.
        _sys.meta_path.append(_make_metadata_finder(metadata_dirs))


def _listdir(os, d):
    try:
        return os.listdir(d)
    except OSError:
        return []


def _rewrite(container, moved):
    """Moves every checkout path in a dict's values or a list (one level of nesting), in place."""
    n = 0
    items = list(container.items()) if isinstance(container, dict) else list(enumerate(container))
    for k, v in items:
        if isinstance(v, list):
            n += _rewrite(v, moved)
            continue
        t = moved(v)
        if t is not None:
            container[k] = t if isinstance(v, str) else type(v)(t)
            n += 1
    return n


def _link_tree(os, sep, d, moved):
    """{top-level module name: its source path in the tree} for a tree of links into the checkout."""
    found = {}
    for name in _listdir(os, d):
        p = os.path.join(d, name)
        src = None
        if os.path.islink(p):
            src = os.path.realpath(p)
        elif os.path.isdir(p):
            for root, _dirs, files in os.walk(p):
                for f in files:
                    fp = os.path.join(root, f)
                    if os.path.islink(fp):
                        rel = os.path.relpath(fp, p)
                        real = os.path.realpath(fp)
                        if real.endswith(sep + rel):
                            src = real[: -len(rel) - 1]
                        break
                if src:
                    break
        t = moved(src) if src else None
        if t is not None:
            mod = name[:-3] if name.endswith(".py") and not os.path.isdir(p) else name
            found[mod] = t
    return found


def _make_finder(os, mapping):
    from importlib.util import spec_from_file_location

    class LokiLinkTreeFinder:
        """Top-level modules of a strict editable install, served from the tree."""

        @classmethod
        def find_spec(cls, fullname, path=None, target=None):
            top, _, rest = fullname.partition(".")
            if rest or top not in mapping:
                return None
            src = mapping[top]
            if os.path.isdir(src):
                init = os.path.join(src, "__init__.py")
                return spec_from_file_location(fullname, init) if os.path.exists(init) else None
            return spec_from_file_location(fullname, src) if os.path.exists(src) else None

    return LokiLinkTreeFinder


def _make_metadata_finder(dirs):
    class LokiMetadataFinder:
        """Distribution metadata from checkout directories that no longer serve imports."""

        @classmethod
        def find_spec(cls, fullname, path=None, target=None):
            return None

        @classmethod
        def find_distributions(cls, context=None):
            from importlib.metadata import DistributionFinder, MetadataPathFinder

            name = getattr(context, "name", None)
            try:
                ctx = DistributionFinder.Context(name=name, path=list(dirs))
                try:
                    return MetadataPathFinder.find_distributions(ctx)
                except TypeError:  # an instance method in some versions
                    return MetadataPathFinder().find_distributions(ctx)
            except Exception:
                return iter(())

    return LokiMetadataFinder


def _loki_chain():
    """Runs the sitecustomize that this one displaced from sys.path, if there is one."""
    import importlib.machinery
    import importlib.util
    import os

    me = os.path.realpath(__file__)
    here = os.path.dirname(me)
    rest = [p for p in _sys.path if os.path.realpath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None or not spec.origin or os.path.realpath(spec.origin) == me:
        return
    mod = importlib.util.module_from_spec(spec)
    _sys.modules["sitecustomize"] = mod
    spec.loader.exec_module(mod)


_loki_isolate()
_loki_chain()
