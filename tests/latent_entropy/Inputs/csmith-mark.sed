# sed -E script for csmith-diff.sh --edit: mark every function of a csmith
# program, and main, __latent_entropy (on the prototypes: the definitions
# inherit it) and define the latent_entropy variable.
s/^(static [^;=]*\bfunc_[0-9]+\(.*\);)$/__attribute__((latent_entropy)) \1/
s/^(int main \(.*\))$/__attribute__((latent_entropy)) \1/
1i volatile unsigned long latent_entropy __attribute__((latent_entropy));
