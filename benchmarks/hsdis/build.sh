#!/bin/sh
# Builds benchmarks/target/hsdis/hsdis-amd64.so, the disassembler HotSpot needs for -XX:+PrintAssembly
# and JMH's -prof perfasm (the JDK ships none). Needs cc and capstone's headers (Debian:
# libcapstone-dev, installed here with apt-get when running as root). Then, for example:
#   LD_LIBRARY_PATH=benchmarks/target/hsdis taskset -c 1 java -cp ... org.openjdk.jmh.Main \
#     FrameWriterVsRawStores.writeFrame -prof perfasm:events=cpu-clock
# (cpu-clock: a machine without hardware counters has no cycles event).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here/.." && pwd)/target/hsdis
case $(uname -m) in
  x86_64) ;;
  *) echo "hsdis: only x86-64 is supported; this machine is $(uname -m)" >&2; exit 1 ;;
esac
command -v cc >/dev/null 2>&1 || { echo "hsdis: no C compiler (cc); install gcc" >&2; exit 1; }
if [ ! -f /usr/include/capstone/capstone.h ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get install -y -q libcapstone-dev >/dev/null
  else
    echo "hsdis: capstone's headers are missing; install libcapstone-dev (Debian/Ubuntu) or capstone-devel" >&2
    exit 1
  fi
fi
mkdir -p "$out"
cc -O2 -Wall -Wextra -shared -fPIC -o "$out/hsdis-amd64.so" "$here/hsdis.c" -lcapstone
echo "built $out/hsdis-amd64.so; run the JVM with LD_LIBRARY_PATH=$out"
