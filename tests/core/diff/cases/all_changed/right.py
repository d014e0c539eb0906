x = nl.load(a)
y = nisa.activation(op=nl.silu, data=x)
nl.store(out, value=y)
