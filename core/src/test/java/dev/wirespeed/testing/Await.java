package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** A wait with a condition and a deadline of its own, for the tests of what other threads do. */
public final class Await {
    private Await() {
    }

    /** Waits for {@code condition}, 20 s at the most, looking every millisecond; then fails saying {@code what}. */
    public static void awaitTrue(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail(what.get() + ", after 20 s");
            }
            Thread.sleep(1);
        }
    }
}
