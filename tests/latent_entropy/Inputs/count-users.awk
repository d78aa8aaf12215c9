# Reads `llvm-objdump -dr OBJECTS`; prints how many objects there are, how
# many have no function with a relocation against latent_entropy, and how
# many functions (over all objects) have one.
/file format/ { obj = $1; objs++ }
/^[0-9a-f]+ <.*>:$/ { fn = obj $2 }
/R_X86_64.*[ \t]latent_entropy([-+]|$)/ && !(fn in seen) { seen[fn] = 1; users++; has[obj] = 1 }
END {
	for (o in has) with++
	printf "%d objects, %d without latent_entropy, %d functions using it\n", objs, objs - with, users
}
