package dev.wirespeed.linux;

import dev.wirespeed.linux.epoll.EpollTransport;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.tls.OpenSsl;
import dev.wirespeed.linux.uring.IoUring;
import dev.wirespeed.linux.uring.IoUringSupport;
import dev.wirespeed.loop.spi.Poller;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * What the native module's tests need of the machine, each checked through
 * {@link Environment#assume(Feature, boolean, java.util.function.Supplier)}: where it is missing, a test is
 * skipped saying why, or fails where the build requires the feature ({@code .ci/run} requires them all).
 * Called first thing in a test, or from a {@code @BeforeEach} for what every test of a class needs: not
 * from a {@code @BeforeAll}, since Surefire reports a class skipped there as no test run, without the
 * reason.
 *
 * <p>Thread safety: stateless.
 */
public final class NativeFeatures {
    private NativeFeatures() {
    }

    /** Goes on where the native path runs: Linux on a 64-bit JVM. */
    public static void assumeNative() {
        Environment.assume(Feature.NATIVE, NativeSocket.isSupported(), () -> "the native path needs Linux on a 64-bit JVM: os.name="
                + System.getProperty("os.name") + " os.arch=" + System.getProperty("os.arch"));
    }

    /** Goes on where the native path runs and an {@code epoll} poller opens. */
    public static void assumeEpoll() {
        assumeNative();
        String why = null;
        try (Poller poller = EpollTransport.create().openPoller()) {
            poller.wakeup();
        } catch (Exception e) {
            why = "an epoll poller did not open: " + e;
        }
        Environment.assume(Feature.EPOLL, why == null, why);
    }

    /** Goes on where the native path runs and a ring opens. */
    public static void assumeIoUring() {
        assumeNative();
        IoUringSupport kernel = IoUringSupport.kernel();
        Environment.assume(Feature.IO_URING, kernel.available(), kernel::unavailableReason);
    }

    /**
     * Goes on where a ring opens with {@code flag} (with the flag it needs, as
     * {@link IoUringSupport#accepts(IoUring.Setup)} tries it).
     *
     * @param flag the setup flag a test needs
     */
    public static void assumeIoUringAccepts(IoUring.Setup flag) {
        assumeIoUring();
        IoUringSupport kernel = IoUringSupport.kernel();
        Environment.assume(Feature.IO_URING, kernel.accepts(flag), () -> "io_uring on this kernel ("
                + System.getProperty("os.version") + ") refuses the setup flag " + flag + " to this process; it takes "
                + kernel.setupFlags());
    }

    /** Goes on where OpenSSL 3's libraries are found and usable ({@link OpenSsl#isAvailable()}). */
    public static void assumeOpenSsl() {
        assumeNative();
        Environment.assume(Feature.LIBSSL, OpenSsl.isAvailable(), OpenSsl::unavailableReason);
    }

    /**
     * {@return why a test may not claim here that the native calls allocate nothing once compiled, or empty
     * where it may}: where there is no system-call stub ({@link LibC#STUB_CALLS}; Surefire's
     * {@code without-syscall-stub} execution turns it off), each call captures {@code errno}, and the JDK's
     * check of the capture segment ({@code SharedUtils.checkCaptureSegment}) makes a 40-byte slice of it
     * per call, garbage wherever the JIT does not inline that check into the call's site. Whether it does
     * depends on what else the JVM ran, so the claim is made, and checked, only where the stub is.
     */
    public static Optional<String> callsMayAllocate() {
        return LibC.STUB_CALLS ? Optional.empty() : Optional.of("no system-call stub: each call's errno capture"
                + " may allocate a 40-byte slice in the JDK's SharedUtils.checkCaptureSegment where the JIT does"
                + " not inline it");
    }

    /** Goes on where the native calls allocate nothing once compiled (see {@link #callsMayAllocate()}). */
    public static void assumeCallsAllocateNothing() {
        Optional<String> why = callsMayAllocate();
        Assumptions.assumeTrue(why.isEmpty(), () -> why.orElseThrow());
    }
}
