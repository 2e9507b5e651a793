# Session 54 run XA: a CPU model of the counts search's row walk (sph50 density, F = 5, reach 2):
# a subgroup's steps per query with its lanes' rows in stencil order and in other orders.
# python3 (numpy); prints steps and efficiency (mean / subgroup's) per order.
import numpy as np, sys
rng=np.random.default_rng(1)
r=1.0; dens=48.8/(4/3*np.pi); fine=0.505; split=5; reach=2
C=fine*split
nc=6  # coarse cells per axis in the box (periodic-free: use interior cells)
L=C*nc
N=rng.poisson(dens*L**3)
P=rng.random((N,3))*L
fc=np.floor(P/fine).astype(int)  # global fine cell
nf=nc*split
key=(fc[:,2]*nf+fc[:,1])*nf+fc[:,0]
cnt=np.bincount(key,minlength=nf**3).reshape(nf,nf,nf) # [z][y][x]
trimR=2*r*(1+1/1024)-r
def steps_for(q):
    f=fc[q]; frac=P[q]/fine-f
    out=[]
    for dz in range(-2,3):
        for dy in range(-2,3):
            gz=max(dz-frac[2],-1-(dz-frac[2]),0)*fine/trimR
            gy=max(dy-frac[1],-1-(dy-frac[1]),0)*fine/trimR
            rest=1-gz*gz-gy*gy
            if rest<0: out.append(-1); continue
            ch=np.sqrt(rest)*trimR/fine
            x0=int(np.clip(np.floor(frac[0]+2-ch),0,4)); x1=int(np.clip(np.floor(frac[0]+2+ch),0,4))
            z=f[2]+dz; y=f[1]+dy
            ln=cnt[z,y,f[0]-2+x0:f[0]-2+x1+1].sum()
            out.append((ln+1)//2)
    return out
# interior coarse cells
qs=[]
sel=np.all((fc>=2*split)&(fc<(nc-2)*split),axis=1)
idx=np.nonzero(sel)[0]
# coarse cell id, local key
cc=fc[idx]//split; lf=fc[idx]%split
ck=(cc[:,2]*nc+cc[:,1])*nc+cc[:,0]; lk=(lf[:,2]*split+lf[:,1])*split+lf[:,0]
S=np.array([steps_for(q) for q in idx])  # (nq,25) -1 = skipped
def cost(order_groups):
    tot_max=0; tot_mean=0
    for g in order_groups:
        for w in range(0,len(g),32):
            ws=S[g[w:w+32]]
            a=np.where(ws<0,0,ws)
            tot_max+= (a.max(axis=0)).sum()   # lockstep per row; +overhead ignored
            tot_mean+= a.sum()/32.0 * (len(ws)/32.0)
    return tot_max, tot_mean
def groups(sortkey):
    gs=[]
    for c in np.unique(ck):
        m=np.nonzero(ck==c)[0]
        m=m[np.lexsort(sortkey(m))]
        gs.append(m)
    return gs
base=groups(lambda m:(idx[m],lk[m]))
print("queries",len(idx),"mean steps/query",np.where(S<0,0,S).sum(1).mean())
# flattened (sum over rows then max over lanes)
tm=0;tn=0
for g in base:
    for w in range(0,len(g),32):
        a=np.where(S[g[w:w+32]]<0,0,S[g[w:w+32]]).sum(1); tm+=a.max(); tn+=a.sum()/32
print("flattened eff %.3f"%(tn/tm))
def cost_rows(transform):
    tm=0;tn=0
    for g in base:
        for w in range(0,len(g),32):
            a=np.where(S[g[w:w+32]]<0,0,S[g[w:w+32]])
            a=transform(a)
            tm+=a.max(axis=0).sum(); tn+=a.sum()/32
    return tn/tm, tm
e,t=cost_rows(lambda a:-np.sort(-a,axis=1)); print("rows sorted desc per lane eff %.3f"%e)
# two buckets: rows with len>=T first (in stencil order), then the rest
for T in (2,3,4):
    def tb(a,T=T):
        out=np.zeros((a.shape[0],50),int)
        for l in range(a.shape[0]):
            hi=[x for x in a[l] if x>=T]; lo=[x for x in a[l] if x<T]
            out[l,:len(hi)]=hi; out[l,25:25+len(lo)]=lo
        return out
    e,t=cost_rows(tb); print("two buckets T=%d eff %.3f"%(T,e))
# compacted: skip empty rows only (rows with 0 steps removed, order kept)
def comp(a):
    out=np.zeros_like(a)
    for l in range(a.shape[0]):
        nz=[x for x in a[l] if x>0]; out[l,:len(nz)]=nz
    return out
e,t=cost_rows(comp); print("empty rows compacted eff %.3f"%e)
print("row length hist", np.bincount(np.where(S<0,0,S).ravel())[:12])
def classes(bounds):
    # bounds: list of lower bounds desc, e.g. [6,5,4,3,2,1]; rows ordered by class desc, stencil order within
    def f(a):
        out=np.zeros_like(a)
        for l in range(a.shape[0]):
            cls=[next((ci for ci,b in enumerate(bounds) if x>=b),len(bounds)) for x in a[l]]
            order=sorted(range(25),key=lambda i:(cls[i],i))
            out[l]=a[l][order]
        return out
    return f
for b in ([6,5,4,3,2,1],[5,4,3,2,1],[5,3,1],[4,2,1],[4,1],[3,1]):
    e,t=cost_rows(classes(b)); print("classes",b,"eff %.3f"%e, "lockstep steps/query %.1f"%(t*32/len(idx)))
e,t=cost_rows(lambda a:a); print("current lockstep steps/query %.1f"%(t*32/len(idx)))
e,t=cost_rows(lambda a:-np.sort(-a,axis=1)); print("sorted lockstep steps/query %.1f"%(t*32/len(idx)))
# per-lane order by geometric width (cells in trimmed row), ties by stencil order
def widths(q):
    f=fc[q]; frac=P[q]/fine-f; out=[]
    for dz in range(-2,3):
        for dy in range(-2,3):
            gz=max(dz-frac[2],-1-(dz-frac[2]),0)*fine/trimR
            gy=max(dy-frac[1],-1-(dy-frac[1]),0)*fine/trimR
            rest=1-gz*gz-gy*gy
            if rest<0: out.append(0); continue
            ch=np.sqrt(rest)*trimR/fine
            x0=int(np.clip(np.floor(frac[0]+2-ch),0,4)); x1=int(np.clip(np.floor(frac[0]+2+ch),0,4))
            out.append(x1-x0+1)
    return out
W=np.array([widths(q) for q in idx])
tm=0;tn=0
for g in base:
    for w in range(0,len(g),32):
        a=np.where(S[g[w:w+32]]<0,0,S[g[w:w+32]]); ww=W[g[w:w+32]]
        b=np.array([a[l][np.lexsort((np.arange(25),-ww[l]))] for l in range(len(a))])
        tm+=b.max(axis=0).sum(); tn+=b.sum()/32
print("by geometric width eff %.3f steps %.1f"%(tn/tm, tm*32/len(idx)))
def plane_sort(a):
    out=np.zeros_like(a)
    for l in range(a.shape[0]):
        pl=a[l].reshape(5,5); o=np.argsort(-pl.sum(1),kind='stable'); out[l]=pl[o].ravel()
    return out
e,t=cost_rows(plane_sort); print("planes sorted eff %.3f steps %.1f"%(e,t*32/len(idx)))
def plane_sort_rows(a):
    out=np.zeros_like(a)
    for l in range(a.shape[0]):
        pl=a[l].reshape(5,5); pl=-np.sort(-pl,axis=1); o=np.argsort(-pl.sum(1),kind='stable'); out[l]=pl[o].ravel()
    return out
e,t=cost_rows(plane_sort_rows); print("planes sorted + rows within eff %.3f steps %.1f"%(e,t*32/len(idx)))
def rows_within_planes(a):
    out=np.zeros_like(a)
    for l in range(a.shape[0]):
        pl=a[l].reshape(5,5); out[l]=(-np.sort(-pl,axis=1)).ravel()
    return out
e,t=cost_rows(rows_within_planes); print("rows sorted within planes eff %.3f steps %.1f"%(e,t*32/len(idx)))
