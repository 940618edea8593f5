package dev.wirespeed.linux.uring;

import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.linux.internal.sys.Syscalls;
import dev.wirespeed.linux.internal.uring.Ring;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What this machine's kernel offers of io_uring, found once by asking it: whether a ring can be
 * opened at all (and if not, why, in words a user can act on), the ring features, the setup flags it
 * accepts and the operations it supports ({@code IORING_REGISTER_PROBE}).
 *
 * <p>A transport asks {@link #require} for the operations it needs and falls back to epoll with the
 * message where the kernel lacks one.
 *
 * @param available whether a ring can be opened
 * @param unavailableReason why not, or the empty string
 * @param features the {@code IORING_FEAT_*} bits of a plain ring (0 if unavailable)
 * @param setupFlags the setup flags the kernel accepted when each was tried
 * @param operations the operations the probe reports supported
 */
public record IoUringSupport(boolean available, String unavailableReason, int features, Set<IoUring.Setup> setupFlags,
        Set<IoUring.Op> operations) {
    static final int REGISTER_PROBE = 8;
    /** {@code struct io_uring_probe} with room for 256 {@code struct io_uring_probe_op}s. */
    static final int PROBE_OPS = 256;
    static final int PROBE_SIZE = 16 + PROBE_OPS * 8;
    static final int OP_SUPPORTED = 1;
    static final Path DISABLED_SYSCTL = Path.of("/proc/sys/kernel/io_uring_disabled");

    private static volatile IoUringSupport kernel;

    /** Copies the sets. */
    public IoUringSupport {
        setupFlags = Collections.unmodifiableSet(setupFlags.isEmpty() ? EnumSet.noneOf(IoUring.Setup.class)
                : EnumSet.copyOf(setupFlags));
        operations = Collections.unmodifiableSet(operations.isEmpty() ? EnumSet.noneOf(IoUring.Op.class)
                : EnumSet.copyOf(operations));
    }

    /** {@return this machine's support, probed on first use} */
    public static IoUringSupport kernel() {
        IoUringSupport k = kernel;
        if (k == null) {
            synchronized (IoUringSupport.class) {
                if ((k = kernel) == null) {
                    kernel = k = probe();
                }
            }
        }
        return k;
    }

    /**
     * {@return whether the probe reports {@code op} supported}
     *
     * @param op the operation
     */
    public boolean supports(IoUring.Op op) {
        return operations.contains(op);
    }

    /**
     * {@return whether a ring opened with {@code flag} alone (with {@code SINGLE_ISSUER} for {@code DEFER_TASKRUN},
     * {@code COOP_TASKRUN} for {@code TASKRUN_FLAG})}
     *
     * @param flag the setup flag
     */
    public boolean accepts(IoUring.Setup flag) {
        return setupFlags.contains(flag);
    }

    /**
     * Checks that a ring can be opened and supports {@code ops}.
     *
     * @param ops the operations a caller needs
     * @throws UnsupportedOperationException naming what is missing and the kernel's release
     */
    public void require(IoUring.Op... ops) {
        if (!available) {
            throw new UnsupportedOperationException(unavailableReason);
        }
        List<IoUring.Op> missing = new ArrayList<>();
        for (IoUring.Op op : ops) {
            if (!operations.contains(op)) {
                missing.add(op);
            }
        }
        if (!missing.isEmpty()) {
            throw new UnsupportedOperationException("io_uring on this kernel (" + System.getProperty("os.version")
                    + ") lacks " + missing + "; it supports " + operations);
        }
    }

    /** {@return a copy that reports {@code ops} unsupported, as an older kernel would}: for tests */
    IoUringSupport without(IoUring.Op... ops) {
        EnumSet<IoUring.Op> left = operations.isEmpty() ? EnumSet.noneOf(IoUring.Op.class) : EnumSet.copyOf(operations);
        left.removeAll(List.of(ops));
        return new IoUringSupport(available, unavailableReason, features, setupFlags, left);
    }

    /**
     * {@return why {@code io_uring_setup} failed with {@code errno}}, in words a user can act on
     *
     * @param disabledSysctl the contents of {@code /proc/sys/kernel/io_uring_disabled}, or null where it is absent
     */
    static String unavailableReason(int errno, String disabledSysctl) {
        String disabled = disabledSysctl == null ? null : disabledSysctl.strip();
        return switch (errno) {
            case Errno.ENOSYS -> "io_uring is not in this kernel (" + System.getProperty("os.version")
                    + "): io_uring_setup failed with ENOSYS";
            case Errno.EPERM -> {
                if ("2".equals(disabled)) {
                    yield "io_uring is disabled on this machine: kernel.io_uring_disabled=2 (0 enables it for every"
                            + " process)";
                }
                if ("1".equals(disabled)) {
                    yield "io_uring is limited to root and the group in kernel.io_uring_group"
                            + " (kernel.io_uring_disabled=1), and this process is neither";
                }
                yield "io_uring_setup was refused with EPERM although kernel.io_uring_disabled="
                        + (disabled == null ? "(absent)" : disabled)
                        + ": a seccomp filter, such as a container runtime's default profile, blocks it";
            }
            case Errno.ENOMEM -> "io_uring_setup failed with ENOMEM: the locked-memory limit (ulimit -l) is too low for a"
                    + " ring's queues";
            default -> "io_uring_setup failed: " + Errno.strerror(errno) + " (errno " + errno + ")";
        };
    }

    private static IoUringSupport probe() {
        LibC.checkSupported();
        String disabled;
        try {
            disabled = Files.exists(DISABLED_SYSCTL) ? Files.readString(DISABLED_SYSCTL) : null;
        } catch (IOException e) {
            disabled = null;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = LibC.captureSegment(arena);
            MemorySegment params = arena.allocate(Ring.PARAMS_SIZE, 8);
            int fd = (int) Syscalls.call(capture, SyscallNumbers.IO_URING_SETUP, 2, params.address(), 0, 0, 0, 0);
            if (fd < 0) {
                return new IoUringSupport(false, unavailableReason(-fd, disabled), 0, Set.of(), Set.of());
            }
            int features = params.get(ValueLayout.JAVA_INT, 20);
            EnumSet<IoUring.Op> ops = EnumSet.noneOf(IoUring.Op.class);
            try {
                MemorySegment probe = arena.allocate(PROBE_SIZE, 8);
                long rc = Syscalls.call(capture, SyscallNumbers.IO_URING_REGISTER, fd, REGISTER_PROBE, probe.address(),
                        PROBE_OPS, 0, 0);
                if (rc >= 0) {
                    int length = Byte.toUnsignedInt(probe.get(ValueLayout.JAVA_BYTE, 1));
                    for (IoUring.Op op : IoUring.Op.values()) {
                        if (op.code() < length) {
                            short opFlags = probe.get(ValueLayout.JAVA_SHORT, 16 + op.code() * 8L + 2);
                            if ((opFlags & OP_SUPPORTED) != 0) {
                                ops.add(op);
                            }
                        }
                    }
                }
            } finally {
                Sys.closeQuietly(fd);
            }
            EnumSet<IoUring.Setup> accepted = EnumSet.noneOf(IoUring.Setup.class);
            for (IoUring.Setup flag : IoUring.Setup.values()) {
                int bits = flag.bit();
                if (flag == IoUring.Setup.DEFER_TASKRUN) {
                    bits |= IoUring.Setup.SINGLE_ISSUER.bit();
                } else if (flag == IoUring.Setup.TASKRUN_FLAG) {
                    bits |= IoUring.Setup.COOP_TASKRUN.bit();
                }
                params.fill((byte) 0);
                params.set(ValueLayout.JAVA_INT, 8, bits);
                params.set(ValueLayout.JAVA_INT, 16, 1); // an SQPOLL thread's idle time, in ms
                int tried = (int) Syscalls.call(capture, SyscallNumbers.IO_URING_SETUP, 2, params.address(), 0, 0, 0, 0);
                if (tried >= 0) {
                    accepted.add(flag);
                    Sys.closeQuietly(tried);
                }
            }
            return new IoUringSupport(true, "", features, accepted, ops);
        }
    }
}
