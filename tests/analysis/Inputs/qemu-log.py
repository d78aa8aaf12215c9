#!/usr/bin/env python3
"""Write a QEMU -d in_asm,exec,nochain log (QEMU 7.2's format) for
exec-profile.test: blocks at the functions of ELF (from `nm`), executed
before, inside and after a window framed by __x64_sys_getppid.

usage: qemu-log.py ELF SCENARIO > LOG   (SCENARIO: a or b)"""
import subprocess
import sys

elf, scenario = sys.argv[1:3]
addr = {}
for line in subprocess.run(["nm", elf], capture_output=True, text=True, check=True).stdout.splitlines():
    v, _, name = line.split()
    addr[name] = int(v, 16)
USER = 0x401000


def translate(pc, n):
    print("----------------\nIN: ")
    for i in range(n):
        print("0x%016x:  90                       nop" % (pc + i))
    print()


def run(pc, times=1):
    for _ in range(times):
        print("Trace 0: 0x7f0000000100 [0000000000000000/%016x/00000040/ff020200] " % pc)


translate(addr["hot"], 3)
translate(addr["__x64_sys_getppid"], 2)
translate(USER, 2)
run(addr["hot"], 5)                 # before the window: not counted
run(addr["__x64_sys_getppid"])      # the window opens
run(addr["hot"], 2)                 # 2 x 3
translate(addr["cold"], 2)
run(addr["cold"])                   # 1 x 2
translate(addr["hot"], 4)           # retranslated: the latest size counts
run(addr["hot"], 1 if scenario == "a" else 3)   # a: 1 x 4, b: 3 x 4
run(USER)                           # 1 x 2, [user]
run(addr["__x64_sys_getppid"])      # the window closes
run(addr["hot"], 10)                # after the window: not counted
