package dev.wirespeed.linux.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.NativeFeatures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** {@link IoUringSupport}: what a missing operation says, and why a ring cannot be opened, in words. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
class IoUringSupportTest {
    @Test
    void aMissingOperationIsNamedWithTheKernelRelease() {
        NativeFeatures.assumeIoUring();
        IoUringSupport older = IoUringSupport.kernel().without(IoUring.Op.SEND_ZC, IoUring.Op.RECV);
        assertFalse(older.supports(IoUring.Op.SEND_ZC));
        older.require(IoUring.Op.NOP, IoUring.Op.SEND);
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> older.require(IoUring.Op.SEND, IoUring.Op.RECV, IoUring.Op.SEND_ZC));
        assertTrue(e.getMessage().startsWith("io_uring on this kernel (" + System.getProperty("os.version")
                + ") lacks [RECV, SEND_ZC]; it supports ["), e.getMessage());
        UnsupportedOperationException none = assertThrows(UnsupportedOperationException.class,
                () -> new IoUringSupport(false, "why not", 0, java.util.Set.of(), java.util.Set.of()).require());
        assertEquals("why not", none.getMessage());
    }

    @Test
    void whyARingCannotBeOpenedIsSaidInWordsAUserCanActOn() {
        assertSays(38, null, "not in this kernel");
        assertSays(1, "2\n", "kernel.io_uring_disabled=2");
        assertSays(1, "1", "kernel.io_uring_group");
        assertSays(1, "0", "seccomp");
        assertSays(1, null, "kernel.io_uring_disabled=(absent)");
        assertSays(12, "0", "ulimit -l");
    }

    private static void assertSays(int errno, String disabledSysctl, String words) {
        String reason = IoUringSupport.unavailableReason(errno, disabledSysctl);
        assertTrue(reason.contains(words), "errno=" + errno + " io_uring_disabled=" + disabledSysctl + ": " + reason);
    }

}
