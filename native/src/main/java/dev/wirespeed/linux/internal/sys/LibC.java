package dev.wirespeed.linux.internal.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Down-calls into the C library, each returning {@code errno} through a capture segment, and into the
 * system call stub ({@link #STUB_6}), which returns it in its result. This is the only class that links
 * native code, so it is the only one excused from the restricted-method lint.
 * Pointers that the hot paths pass travel as addresses in {@code long}s: public here, in a package the
 * module does not export, and never through a public method of an exported one.
 *
 * <p>The handles named {@code ..._CRITICAL} are linked with {@code Linker.Option.critical(false)}: the
 * thread stays in the Java state through the call, which saves the two state changes and the safepoint
 * check on the way back, but no safepoint (no GC, no handshake) can complete in the whole JVM until the
 * call returns. So each is only for calls that cannot wait, and each says what makes it so: an argument
 * ({@code MSG_DONTWAIT}, a zero timeout, nothing to wait for) or a descriptor whose {@code O_NONBLOCK}
 * no one else can clear. {@code errno} is captured by the linker's stub as for the others, right after
 * the call and before any code of the JVM's runs.
 *
 * <p>Only the system call stub's handles, and the three calls that map it, are linked when this class is
 * first used; the others in groups of their own (nested classes), each linked when one of its handles is
 * first used: linking a handle costs milliseconds (most of it spinning the code that carries the call),
 * and where the stub is there a program of sockets, pipes and an epoll loop needs none of them.
 *
 * <p>The data calls of the hot paths ({@code read}, {@code write}, {@code recvfrom}, {@code sendto},
 * {@code sendmsg}, {@code epoll_pwait}), io_uring's, and the others that sockets, listeners, pipes and
 * pollers make ({@code socket}, {@code connect}, {@code accept4}, {@code pipe2}, {@code epoll_ctl},
 * {@code close}, ...) go through {@link Syscalls}, numbered by {@link SyscallNumbers},
 * not through the C library's wrappers: those are cancellation points, and in a multi-threaded process,
 * as every JVM is, each wrapper switches the thread to asynchronous cancellation and back around the
 * call, two atomic updates per call that a single-threaded C program skips. The JVM never cancels a
 * thread, so nothing is lost.
 */
@SuppressWarnings("restricted")
public final class LibC {
    public static final boolean LINUX = System.getProperty("os.name", "").startsWith("Linux");

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LOOKUP = LINKER.defaultLookup();
    public static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CAPTURE_LAYOUT.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /** {@code void *mmap(void *, size_t, int prot, int flags, int fd, off_t)}, errno captured, addresses as {@code long}s. */
    public static final MethodHandle MMAP = errnoCall("mmap", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG));
    /** {@code int mprotect(void *, size_t, int prot)}, errno captured, the address as a {@code long}. */
    public static final MethodHandle MPROTECT = errnoCall("mprotect", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    /** {@code int munmap(void *, size_t)}, errno captured. */
    public static final MethodHandle MUNMAP = errnoCall("munmap", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));

    private LibC() {
    }

    /** The CPU affinity calls. */
    public static final class Cpus {
        /** {@code int sched_setaffinity(pid_t, size_t, const cpu_set_t *)}, errno captured. */
        public static final MethodHandle SCHED_SETAFFINITY = errnoCall("sched_setaffinity",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS));
        /** {@code int sched_getaffinity(pid_t, size_t, cpu_set_t *)}, errno captured. */
        public static final MethodHandle SCHED_GETAFFINITY = errnoCall("sched_getaffinity",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS));
        /** {@code int sched_getcpu(void)}, errno captured. */
        public static final MethodHandle SCHED_GETCPU =
                errnoCall("sched_getcpu", FunctionDescriptor.of(ValueLayout.JAVA_INT));

        private Cpus() {
        }
    }

    /** The file calls of the file reads. */
    public static final class Files {
        /**
         * {@code ssize_t read(int fd, void *, size_t)}, errno captured, the buffer passed as its address in a
         * {@code long} (a pointer and a 64-bit integer travel alike on the 64-bit ABIs): no segment object
         * per call on the hot path.
         */
        public static final MethodHandle READ_AT = errnoCall("read", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        /**
         * {@code ssize_t read(int fd, void *, size_t)} as a critical call that may be given a heap
         * segment: the kernel copies straight into a Java array. The calling thread does not reach a
         * safepoint until it returns, so it is only for bytes already in memory, a bounded number at a
         * time ({@link LinuxFileReads}). errno captured.
         */
        public static final MethodHandle READ_CRITICAL = LINUX ? LINKER.downcallHandle(find("read"),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                        ValueLayout.JAVA_LONG),
                Linker.Option.critical(true), CAPTURE_ERRNO) : null;
        /**
         * {@code int open(const char *, int flags)} (variadic after {@code flags}; no mode is passed), errno
         * captured.
         */
        public static final MethodHandle OPEN = LINUX ? LINKER.downcallHandle(find("open"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
                Linker.Option.firstVariadicArg(2), CAPTURE_ERRNO) : null;
        /**
         * {@code int statx(int dirfd, const char *, int flags, unsigned mask, struct statx *)}, errno
         * captured: one layout on every architecture, unlike {@code struct stat}.
         */
        public static final MethodHandle STATX = errnoCall("statx", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS));
        /**
         * {@code long syscall(long number, int fd, void *, void *, unsigned flags)}, for system calls
         * the C library has no wrapper for ({@code cachestat}), errno captured.
         */
        public static final MethodHandle SYSCALL_4 = LINUX ? LINKER.downcallHandle(find("syscall"),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                        ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
                Linker.Option.firstVariadicArg(1), CAPTURE_ERRNO) : null;
        /** {@code int getpagesize(void)}. */
        public static final MethodHandle GETPAGESIZE = LINUX ? LINKER.downcallHandle(find("getpagesize"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT)) : null;

        private Files() {
        }
    }

    /** {@link Syscalls}' way where there is no {@link LibC#STUB_6}: {@code syscall(2)}. */
    public static final class Fallback {
        /**
         * {@code long syscall(long number, ...)} with six more arguments, each passed as a {@code long}
         * (the C library reads every variadic argument of {@code syscall} as one; a call that takes fewer
         * ignores the rest), errno captured. Pointers travel as addresses in {@code long}s, as in
         * {@link Files#READ_AT}.
         */
        public static final MethodHandle SYSCALL_6 = LINUX ? LINKER.downcallHandle(find("syscall"),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG),
                Linker.Option.firstVariadicArg(1), CAPTURE_ERRNO) : null;
        /**
         * {@link #SYSCALL_6} as a critical call: only for a call that returns at once. {@code recvfrom},
         * {@code sendto} and {@code sendmsg} with {@code MSG_DONTWAIT}; {@code read} and {@code write} of a
         * descriptor whose {@code O_NONBLOCK} no one else can clear; {@code epoll_pwait} with a zero timeout;
         * {@code io_uring_enter} with nothing to submit, {@code min_complete} 0 and no flag that waits
         * ({@code GETEVENTS} then only runs completion work), not with operations to submit: the kernel issues
         * them inline, and a file's read may wait there for its disk.
         */
        public static final MethodHandle SYSCALL_6_CRITICAL = LINUX ? LINKER.downcallHandle(find("syscall"),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG),
                Linker.Option.firstVariadicArg(1), Linker.Option.critical(false), CAPTURE_ERRNO) : null;

        private Fallback() {
        }
    }

    /** The text of an error number. */
    public static final class Messages {
        /** {@code char *strerror(int)}: its text is for {@link Errno#strerror}. */
        public static final MethodHandle STRERROR = LINUX ? LINKER.downcallHandle(find("strerror"),
                FunctionDescriptor.of(ValueLayout.ADDRESS.withTargetLayout(
                        java.lang.foreign.MemoryLayout.sequenceLayout(256, ValueLayout.JAVA_BYTE)),
                        ValueLayout.JAVA_INT)) : null;

        private Messages() {
        }
    }

    /**
     * The machine code of {@code long stub(long number, long a1, long a2, long a3, long a4, long a5, long a6)}
     * for x86-64, 30 bytes: the arguments moved from the C calling convention's registers (and the stack, for
     * {@code a6}) to the kernel's, then {@code syscall} and {@code ret}. What the kernel returns is left in
     * {@code rax} as it is, minus the error number on failure, so that nothing reads or writes {@code errno}.
     */
    private static final byte[] X86_64_STUB = {
        (byte) 0xf3, 0x0f, 0x1e, (byte) 0xfa, // endbr64           an indirect call's target, where the CPU checks (else a no-op)
        0x48, (byte) 0x89, (byte) 0xf8,       // mov rax, rdi      the call's number
        0x48, (byte) 0x89, (byte) 0xf7,       // mov rdi, rsi      a1
        0x48, (byte) 0x89, (byte) 0xd6,       // mov rsi, rdx      a2
        0x48, (byte) 0x89, (byte) 0xca,       // mov rdx, rcx      a3
        0x4d, (byte) 0x89, (byte) 0xc2,       // mov r10, r8       a4
        0x4d, (byte) 0x89, (byte) 0xc8,       // mov r8, r9        a5
        0x4c, (byte) 0x8b, 0x4c, 0x24, 0x08,  // mov r9, [rsp+8]   a6, the first argument on the stack
        0x0f, 0x05,                           // syscall           (clobbers rcx and r11, as a call may)
        (byte) 0xc3                           // ret
    };
    /** Where {@link #X86_64_STUB} was mapped, or {@link MemorySegment#NULL} (see {@link #STUB_6}). */
    private static final MemorySegment STUB = LINUX && SyscallNumbers.X86_64
            && !"false".equals(System.getProperty("wirespeed.syscallStub")) ? mapStub(X86_64_STUB) : MemorySegment.NULL;
    /**
     * {@code long stub(long number, long a1, ..., long a6)}: a system call that returns the kernel's result
     * as it is, minus the error number on failure, with no {@code errno} to capture, which saves the
     * capture's call into the JVM after each down-call; {@code null} where it is not there. It is there on
     * x86-64, as a page of this process's own, written once and then made executable and read-only (never
     * writable and executable at once); on other architectures, where the process may not map executable
     * memory, or where the system property {@code wirespeed.syscallStub} is {@code false}, the calls go
     * through {@link Fallback#SYSCALL_6} and its kin. Pointers travel as addresses in {@code long}s.
     */
    public static final MethodHandle STUB_6 = STUB.equals(MemorySegment.NULL) ? null
            : LINKER.downcallHandle(STUB, stubDescriptor());
    /** {@link #STUB_6} as a critical call, for the calls {@link Fallback#SYSCALL_6_CRITICAL} lists. */
    public static final MethodHandle STUB_6_CRITICAL = STUB.equals(MemorySegment.NULL) ? null
            : LINKER.downcallHandle(STUB, stubDescriptor(), Linker.Option.critical(false));
    /** Whether {@link #STUB_6} is there: a constant, so that the JIT keeps one path of a call and drops the other. */
    public static final boolean STUB_CALLS = STUB_6 != null;

    private static FunctionDescriptor stubDescriptor() {
        ValueLayout.OfLong j = ValueLayout.JAVA_LONG;
        return FunctionDescriptor.of(j, j, j, j, j, j, j, j);
    }

    /**
     * {@return a page holding {@code code}, readable and executable, or {@link MemorySegment#NULL} where the
     * process may not map one} The page lives as long as the process.
     */
    private static MemorySegment mapStub(byte[] code) {
        final int protRead = 0x1;
        final int protWrite = 0x2;
        final int protExec = 0x4;
        final int mapPrivateAnonymous = 0x02 | 0x20;
        final long size = 4096;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = captureSegment(arena);
            long page = (long) MMAP.invokeExact(capture, 0L, size, protRead | protWrite, mapPrivateAnonymous, -1, 0L);
            if (page == -1) {
                return MemorySegment.NULL;
            }
            MemorySegment.copy(code, 0, MemorySegment.ofAddress(page).reinterpret(size), ValueLayout.JAVA_BYTE, 0,
                    code.length);
            if ((int) MPROTECT.invokeExact(capture, page, size, protRead | protExec) != 0) {
                int ignored = (int) MUNMAP.invokeExact(capture, page, size);
                return MemorySegment.NULL; // a policy that refuses executable memory: syscall(2) it is
            }
            return MemorySegment.ofAddress(page);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("mapping the system call stub failed", t);
        }
    }

    public static void checkSupported() {
        if (!LINUX) {
            throw new UnsupportedOperationException(
                    "the native path needs Linux; os.name=" + System.getProperty("os.name"));
        }
        if (!SyscallNumbers.KNOWN) {
            throw new UnsupportedOperationException("the native path knows the system call numbers of x86-64,"
                    + " aarch64 and riscv64; os.arch=" + SyscallNumbers.ARCH);
        }
        if (ValueLayout.ADDRESS.byteSize() != Long.BYTES) {
            throw new UnsupportedOperationException("the native path needs a 64-bit JVM; pointer size="
                    + ValueLayout.ADDRESS.byteSize() + " os.arch=" + System.getProperty("os.arch"));
        }
    }

    /** A capture segment for one call's errno, from {@code arena}. */
    public static MemorySegment captureSegment(Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    public static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    private static MethodHandle errnoCall(String name, FunctionDescriptor descriptor) {
        return LINUX ? LINKER.downcallHandle(find(name), descriptor, CAPTURE_ERRNO) : null;
    }

    private static MemorySegment find(String name) {
        return LOOKUP.find(name).orElseThrow(
                () -> new UnsatisfiedLinkError("no symbol " + name + " in the C library"));
    }
}
