import json,sys,collections,statistics as st
def load(files):
  by=collections.defaultdict(dict); meta={}
  for f in files:
    for l in open(f):
      r=json.loads(l)
      if r['role']!='xpose': continue
      c=r['case']
      if r['kernel']=='auto': meta[c]=r
      by[c][r['kernel']]=r['pct_copy']
  return by,meta
def sim(by,meta,chosen,alt,pred,show=False):
  g=[]
  for c,m in meta.items():
    if m['chosen']!=chosen or alt not in by[c]: continue
    E=m['elem_bytes']; R=m['rows']; C=m['cols']; B=m['batch']; mat=R*C*E; tot=mat*B
    if pred(E,R,C,B,mat,tot,m):
      d=by[c][alt]-by[c]['auto']; g.append(d)
      if show: print(round(d,1), c.split(': ',1)[1].split(' (')[0][:50], round(by[c]['auto'],1), round(by[c][alt],1))
  if g: print(f'{chosen}->{alt}: n={len(g)} sum={sum(g):.0f} mean={st.mean(g):.1f} wins={sum(x>2 for x in g)} losses={sum(x<-2 for x in g)} worst={min(g):.1f}')
  else: print('none')
