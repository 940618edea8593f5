package dev.wirespeed.linux.internal.sys;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.NativePipe;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LibC#STUB_6}, the system call stub: there on x86-64 unless {@code wirespeed.syscallStub} is
 * {@code false} (the build runs this class both ways), and where it is there, each of its six arguments
 * reaches the kernel in its place and the kernel's result comes back as it is, minus the errno on failure.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the native path is Linux-only")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SyscallStubTest {
    private static final int EBADF = 9;
    private static final int EINVAL = 22;
    private static final int EFAULT = 14;
    /** The epoll set-up through the C library's own wrappers, apart from the stub under test. */
    private static final MethodHandle EPOLL_CREATE1 = libc("epoll_create1",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle EPOLL_CTL = libc("epoll_ctl", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));

    @BeforeEach
    void nativePath() {
        NativeFeatures.assumeNative();
    }

    /**
     * Skips a test of the stub's calls where this JVM has none, saying why; {@link
     * #theStubIsThereOnX8664UnlessThePropertyTurnsItOff} fails where it should be there, so the skip hides
     * nothing.
     */
    private static void assumeStub() {
        assumeTrue(LibC.STUB_CALLS, () -> "no system call stub in this JVM: " + (stubTurnedOff()
                ? "-Dwirespeed.syscallStub=false (the build's second run of these tests)"
                : "os.arch=" + SyscallNumbers.ARCH + " has none"));
    }

    private static boolean stubTurnedOff() {
        return "false".equals(System.getProperty("wirespeed.syscallStub"));
    }

    @Test
    void theStubIsThereOnX8664UnlessThePropertyTurnsItOff() {
        boolean off = stubTurnedOff();
        if (off) {
            assertFalse(LibC.STUB_CALLS, "wirespeed.syscallStub=false");
        } else if (SyscallNumbers.X86_64) {
            assertTrue(LibC.STUB_CALLS, "x86-64, and the property not false: the stub must be mapped");
        } else {
            assertFalse(LibC.STUB_CALLS, "os.arch=" + SyscallNumbers.ARCH + " has no stub");
        }
        assertEquals(LibC.STUB_CALLS, LibC.STUB_6 != null);
        assertEquals(LibC.STUB_CALLS, LibC.STUB_6_CRITICAL != null);
    }

    @Test
    void aFailureComesBackAsMinusItsErrnoAndASuccessAsItsCount() throws Throwable {
        assumeStub();
        NativePipe.Ends pipe = NativePipe.open();
        try (NativePipe source = pipe.source(); NativePipe sink = pipe.sink(); Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(300);
            MemorySegment in = arena.allocate(300);
            byte[] bytes = new byte[300];
            new SplittableRandom(31).nextBytes(bytes);
            MemorySegment.copy(bytes, 0, out, ValueLayout.JAVA_BYTE, 0, bytes.length);
            for (MethodHandle stub : new MethodHandle[] {LibC.STUB_6, LibC.STUB_6_CRITICAL}) {
                assertEquals(-EBADF, (long) stub.invokeExact(SyscallNumbers.READ, -1L, in.address(), 8L, 0L, 0L, 0L));
                assertEquals(-EFAULT, (long) stub.invokeExact(SyscallNumbers.WRITE, (long) sink.fd(), 0L, 8L, 0L, 0L,
                        0L), "a null buffer");
                assertEquals(300L, (long) stub.invokeExact(SyscallNumbers.WRITE, (long) sink.fd(), out.address(), 300L,
                        0L, 0L, 0L));
                in.fill((byte) 0);
                assertEquals(300L, (long) stub.invokeExact(SyscallNumbers.READ, (long) source.fd(), in.address(), 300L,
                        0L, 0L, 0L));
                assertArrayEquals(bytes, in.toArray(ValueLayout.JAVA_BYTE));
            }
        }
    }

    /** {@code pread64(fd, buffer, count, offset)} reads from its fourth argument's offset. */
    @Test
    void theFourthArgumentArrivesInItsPlace(@TempDir Path dir) throws Throwable {
        assumeStub();
        final long pread64 = 17; // x86-64's number: the stub is x86-64's only
        byte[] bytes = new byte[4096];
        new SplittableRandom(17).nextBytes(bytes);
        Path file = Files.write(dir.resolve("bytes"), bytes);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = LibC.captureSegment(arena);
            int fd = (int) LibC.Files.OPEN.invokeExact(capture, arena.allocateFrom(file.toString()), 0);
            assertTrue(fd >= 0, "open errno=" + LibC.errno(capture));
            try {
                MemorySegment in = arena.allocate(100);
                for (long offset : new long[] {0, 1, 999, 3996}) {
                    for (MethodHandle stub : new MethodHandle[] {LibC.STUB_6, LibC.STUB_6_CRITICAL}) {
                        assertEquals(100L, (long) stub.invokeExact(pread64, (long) fd, in.address(), 100L, offset, 0L,
                                0L), "offset " + offset);
                        assertArrayEquals(Arrays.copyOfRange(bytes, (int) offset, (int) offset + 100),
                                in.toArray(ValueLayout.JAVA_BYTE), "offset " + offset);
                    }
                }
            } finally {
                Sys.close(fd);
            }
        }
    }

    /**
     * {@code epoll_pwait(epfd, events, maxevents, timeout, sigmask, sigsetsize)} checks its sixth argument
     * against the kernel's signal set size only when its fifth is not null: so a right size is taken and
     * a wrong one refused only if both arrive in their places. The set holds a pipe's writing end, always
     * ready, so that the call returns at once whatever timeout arrives.
     */
    @Test
    void theFirstThirdFifthAndSixthArgumentsArriveInTheirPlaces() throws Throwable {
        assumeStub();
        final int epollCtlAdd = 1;
        final int epollOut = 0x004;
        NativePipe.Ends pipe = NativePipe.open();
        try (NativePipe sink = pipe.sink(); Arena arena = Arena.ofConfined()) {
            MemorySegment capture = LibC.captureSegment(arena);
            MemorySegment events = arena.allocate(16L * 4, 8);
            MemorySegment mask = arena.allocate(8, 8); // no signal blocked
            int epfd = (int) EPOLL_CREATE1.invokeExact(capture, 0);
            assertTrue(epfd >= 0, "epoll_create1 errno=" + LibC.errno(capture));
            try {
                MemorySegment event = arena.allocate(16, 8);
                event.set(ValueLayout.JAVA_INT, 0, epollOut);
                int rc = (int) EPOLL_CTL.invokeExact(capture, epfd, epollCtlAdd, sink.fd(), event);
                assertEquals(0, rc, "epoll_ctl errno=" + LibC.errno(capture));
                for (MethodHandle stub : new MethodHandle[] {LibC.STUB_6, LibC.STUB_6_CRITICAL}) {
                    assertEquals(1L, (long) stub.invokeExact(SyscallNumbers.EPOLL_PWAIT, (long) epfd, events.address(),
                            4L, 0L, mask.address(), 8L), "the right signal set size");
                    assertEquals(epollOut, events.get(ValueLayout.JAVA_INT, 0), "the event, at the second argument");
                    assertEquals(-EINVAL, (long) stub.invokeExact(SyscallNumbers.EPOLL_PWAIT, (long) epfd,
                            events.address(), 4L, 0L, mask.address(), 7L), "a wrong size in the sixth argument");
                    assertEquals(-EINVAL, (long) stub.invokeExact(SyscallNumbers.EPOLL_PWAIT, (long) epfd,
                            events.address(), 0L, 0L, 0L, 8L), "no room for events in the third");
                    assertEquals(-EBADF, (long) stub.invokeExact(SyscallNumbers.EPOLL_PWAIT, -1L, events.address(),
                            4L, 0L, mask.address(), 8L), "no descriptor in the first");
                }
            } finally {
                Sys.close(epfd);
                pipe.source().close(); // open until here: the writing end is ready while its reader is there
            }
        }
    }

    @SuppressWarnings("restricted")
    private static MethodHandle libc(String name, FunctionDescriptor descriptor) {
        if (!LibC.LINUX) {
            return null;
        }
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find(name).orElseThrow(), descriptor,
                Linker.Option.captureCallState("errno"));
    }
}
