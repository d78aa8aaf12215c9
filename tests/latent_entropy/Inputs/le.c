/* The reference test vector (§3.4): variables and one function with an
 * if/else and two tail calls. */
typedef unsigned char u8;
extern volatile unsigned long latent_entropy;
unsigned long lv __attribute__((latent_entropy));
unsigned int arr[4] __attribute__((latent_entropy));
struct s { u8 a; int b; long c; } sv __attribute__((latent_entropy));
int g(int); int h(int);
__attribute__((latent_entropy)) int f(int x)
{
	if (x > 3)
		return g(x + 1);
	else if (x < -5)
		return h(x * 3);
	return x * 7;
}
