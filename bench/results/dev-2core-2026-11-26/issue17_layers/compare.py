# Best of the rounds per (case, size, impl), before and after the layer change (issue 17).
#   python3 compare.py 1 2 3 4
import csv,os,statistics,sys
here=os.path.dirname(os.path.abspath(__file__))
def load(p):
    d={}
    for r in csv.DictReader(l for l in open(p) if not l.startswith('#')):
        if r['impl'] in ('ufunc_cpu','ufunc_parallel','numpy'):
            d[(r['case'],int(r['size']),r['impl'])]=float(r['seconds'])
    return d
rounds=sys.argv[1:]
b=[load(os.path.join(here, f'before_{r}.csv')) for r in rounds]
a=[load(os.path.join(here, f'after_{r}.csv')) for r in rounds]
rows=[]
for k in sorted(b[0]):
    if k[2]=='numpy': continue
    bb=min(x[k] for x in b); aa=min(x[k] for x in a)
    rows.append((k,bb,aa,aa/bb))
print("| case | n | impl | before (us) | after (us) | after/before |\n|---|---:|---|---:|---:|---:|")
for k,bb,aa,r in rows: print(f"| {k[0]} | {k[1]} | {k[2]} | {bb*1e6:.3f} | {aa*1e6:.3f} | {r:.3f} |")
print("geomean after/before:", round(statistics.geometric_mean([r for *_,r in rows]),3), " cpu only:", round(statistics.geometric_mean([r for k,*_,r in rows if k[2]=='ufunc_cpu']),3))
