# Session 54 run XA: a CPU model of the counts search's row walk (sph50 density, F = 5, reach 2):
# a subgroup's steps per query with its lanes' rows in stencil order and in other orders.
# A subgroup walks its lanes' rows in step, so each of its rows costs its lanes' longest;
# "eff" is the lanes' mean steps over the subgroup's. Debian's python3 with python3-numpy.
import numpy as np

rng = np.random.default_rng(1)
r = 1.0; dens = 48.8 / (4 / 3 * np.pi); fine = 0.505; split = 5
nc = 6  # coarse cells per axis in the box; only the interior ones' queries are walked
L = fine * split * nc
P = rng.random((rng.poisson(dens * L ** 3), 3)) * L
fc = np.floor(P / fine).astype(int)  # each point's fine cell
nf = nc * split
cnt = np.bincount((fc[:, 2] * nf + fc[:, 1]) * nf + fc[:, 0], minlength=nf ** 3).reshape(nf, nf, nf)  # [z][y][x]
trimR = 2 * r * (1 + 1 / 1024) - r  # walk_rows' trim radius


def trimmed_rows(q):
    """The query's 25 rows (z-major) as (dz, dy, x0, x1) in local x 0..4, None where trimmed away."""
    f = fc[q]; frac = P[q] / fine - f; rows = []
    for dz in range(-2, 3):
        for dy in range(-2, 3):
            gz = max(dz - frac[2], -1 - (dz - frac[2]), 0) * fine / trimR
            gy = max(dy - frac[1], -1 - (dy - frac[1]), 0) * fine / trimR
            rest = 1 - gz * gz - gy * gy
            if rest < 0:
                rows.append(None); continue
            ch = np.sqrt(rest) * trimR / fine
            rows.append((dz, dy, int(np.clip(np.floor(frac[0] + 2 - ch), 0, 4)), int(np.clip(np.floor(frac[0] + 2 + ch), 0, 4))))
    return rows


def steps_for(q):  # two candidates a step
    f = fc[q]
    return [0 if t is None else (cnt[f[2] + t[0], f[1] + t[1], f[0] - 2 + t[2]:f[0] - 1 + t[3]].sum() + 1) // 2
            for t in trimmed_rows(q)]


idx = np.nonzero(np.all((fc >= 2 * split) & (fc < (nc - 2) * split), axis=1))[0]
cc = fc[idx] // split; lf = fc[idx] % split
ck = (cc[:, 2] * nc + cc[:, 1]) * nc + cc[:, 0]; lk = (lf[:, 2] * split + lf[:, 1]) * split + lf[:, 0]
S = np.array([steps_for(q) for q in idx])  # (queries, 25)
W = np.array([[0 if t is None else t[3] - t[2] + 1 for t in trimmed_rows(q)] for q in idx])  # trimmed widths
# Subgroups: 32 consecutive queries of a coarse cell in sorted order (fine cell, then index).
subgroups = []
for c in np.unique(ck):
    m = np.nonzero(ck == c)[0]
    m = m[np.lexsort((idx[m], lk[m]))]
    subgroups += [m[w:w + 32] for w in range(0, len(m), 32)]


def cost_rows(transform):
    """eff and the subgroups' steps, each lane's rows reordered by transform(steps, lanes)."""
    tm = tn = 0
    for g in subgroups:
        a = transform(S[g], g)
        tm += a.max(axis=0).sum(); tn += a.sum() / 32
    return tn / tm, tm


def report(name, transform):
    e, t = cost_rows(transform)
    print("%s: eff %.3f, steps/query %.1f" % (name, e, t * 32 / len(idx)))


def per_lane(order):  # each lane's rows in the order order(its steps, its lane) gives
    return lambda a, g: np.array([a[l][order(a[l], g[l])] for l in range(len(a))])


def by_class(bounds):  # rows by class (steps >= bounds[i]) descending, stencil order within a class
    return per_lane(lambda s, _: sorted(range(25), key=lambda i: (next((c for c, b in enumerate(bounds) if s[i] >= b), len(bounds)), i)))


def padded_buckets(T):  # rows of >= T steps first in stencil order, the rest from slot 25 on
    def f(a, g):
        out = np.zeros((a.shape[0], 50), int)
        for l in range(a.shape[0]):
            hi = [x for x in a[l] if x >= T]; lo = [x for x in a[l] if x < T]
            out[l, :len(hi)] = hi; out[l, 25:25 + len(lo)] = lo
        return out
    return f


print("queries", len(idx), "mean steps/query", S.sum(1).mean())
print("row length hist", np.bincount(S.ravel())[:12])
report("stencil order (now)", lambda a, g: a)
report("flattened (each lane's rows as one sequence)", lambda a, g: a.sum(1, keepdims=True))
report("rows sorted longest first per lane", lambda a, g: -np.sort(-a, axis=1))
report("rows sorted within each plane", lambda a, g: -np.sort(-a.reshape(-1, 5, 5), axis=2).reshape(-1, 25))
report("planes sorted by their steps", per_lane(lambda s, _: np.argsort(-s.reshape(5, 5).sum(1), kind='stable')[:, None] * 5 + np.arange(5)))
report("planes sorted, rows sorted within", lambda a, g: np.array([(lambda pl: pl[np.argsort(-pl.sum(1), kind='stable')].ravel())(-np.sort(-x.reshape(5, 5), axis=1)) for x in a]))
report("by trimmed width per lane", per_lane(lambda s, q: np.lexsort((np.arange(25), -W[q]))))
report("empty rows skipped", per_lane(lambda s, _: sorted(range(25), key=lambda i: (s[i] == 0, i))))
for T in (2, 3, 4):
    report("two buckets, T=%d" % T, padded_buckets(T))
for b in ([6, 5, 4, 3, 2, 1], [5, 4, 3, 2, 1], [5, 3, 1], [4, 2, 1], [4, 1], [3, 1]):
    report("classes %s" % b, by_class(b))
