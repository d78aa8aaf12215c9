// The IR frame bound must hold after instruction scheduling.  Found on
// x86_64_defconfig (mm/vmstat.c's fragmentation_index(), the shape below):
// the IR keeps about six values live in this straight-line block, but the
// scheduler hoists the eleven loads above the sums that consume them, and
// the frame becomes spill slots: 112 bytes on clang-19, 120 on clang-14.
// The bound counted the IR order, left the function without a call, and
// passport-finalize stopped the kernel build.  Now a block's bound is the
// most values it can hold at once in any order of its data dependences
// (about 47 registers here): no bound, so the call is placed, and
// passport-finalize keeps it exactly where the final frame reaches 100.
// RUN: %cc %clang $(%flags --stackleak=100 --verbose) -O2 -mno-red-zone -mcmodel=kernel -fno-pic -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: llvm-objdump -d %t.o | FileCheck %s --check-prefix=OBJ

struct free_area { unsigned long nr_free; unsigned long pad[8]; };
struct zone { unsigned long head[32]; struct free_area free_area[11]; };

int fragmentation_index(struct zone *zone, unsigned int order)
{
	unsigned long free_pages = 0, free_blocks_total = 0, free_blocks_suitable = 0;
	unsigned long requested = 1UL << order;

	for (unsigned int o = 0; o < 11; o++) {
		unsigned long blocks = zone->free_area[o].nr_free;

		free_blocks_total += blocks;
		free_pages += blocks << o;
		if (o >= order)
			free_blocks_suitable += blocks << (o - order);
	}
	if (order > 10)
		__builtin_trap();
	if (!free_blocks_total)
		return 0;
	if (free_blocks_suitable)
		return -1000;
	return 1000 - (int)((1000 + (free_pages * 1000 / requested)) / free_blocks_total);
}

// CHECK: passport: stackleak: candidate fragmentation_index(): {{.*}}IR bound: {{[0-9]+}} registers live
// CHECK: stackleak: {{instrument|drop}} fragmentation_index(): frame {{[0-9]+}} {{>=|<}} 100
// CHECK-NOT: error
// OBJ-LABEL: <fragmentation_index>:
// OBJ: subq ${{(0x)?[0-9a-f]+}}, %rsp
// OBJ-NEXT: {{call|nopl}}
