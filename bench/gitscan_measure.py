"""Side-by-side cost of bwrun's post-command git scan (BENCHMARKS.md).

B (default /var/tmp/gitescape-bench) holds bwpolicy, bwrun-scan (bwrun
built from the tree), bwrun-noscan (the same with runtime.ScanGit's call
replaced by an empty report), and the trees proj/ and big/ to run in.
"""
import subprocess, time, statistics, sys, os
B=os.environ.get("B", "/var/tmp/gitescape-bench")
res={}
for proj in ["proj","big"]:
    d=f"{B}/{proj}"
    inv=f"{B}/inv-{proj}.json"
    subprocess.run([f"{B}/bwpolicy","compile","-o",inv],cwd=d,check=True,env=dict(os.environ,HOME="/root"))
    for name in ["bwrun-noscan","bwrun-scan"]:
        res[(proj,name)]=[]
    for i in range(41):
        for name in ["bwrun-noscan","bwrun-scan"]:
            t=time.perf_counter()
            r=subprocess.run([f"{B}/{name}",inv,"--","/bin/true"],cwd=d,capture_output=True)
            el=time.perf_counter()-t
            if r.returncode!=0: print(name, r.stderr.decode()[:300]); sys.exit(1)
            if i>0: res[(proj,name)].append(el*1000)
for (p,n),v in sorted(res.items()):
    print(p,n,"median %.1f ms"%statistics.median(v))
