package dev.wirespeed.testing;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * The seed of a test class's random choices, printed and replayable: {@code -Dwirespeed.test.seed=N}
 * replays a run, otherwise each run takes a new seed. Registered as an extension, it prints the seed
 * before the class's first test and adds it, with the flags that replay the test, to every failure.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final Seed SEED = Seed.fromPropertyOrNew();
 * ...
 * SplittableRandom random = new SplittableRandom(SEED.value());
 * }</pre>
 *
 * <p>Thread safety: immutable.
 */
public final class Seed implements BeforeAllCallback, TestExecutionExceptionHandler {
    /** The system property that replays a seed. */
    public static final String PROPERTY = "wirespeed.test.seed";

    private final long value;

    private Seed(long value) {
        this.value = value;
    }

    /** {@return the seed {@value #PROPERTY} names, or a new one} */
    public static Seed fromPropertyOrNew() {
        return new Seed(Long.getLong(PROPERTY, System.nanoTime()));
    }

    /** {@return the seed} */
    public long value() {
        return value;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        System.out.println(context.getRequiredTestClass().getSimpleName() + " seed=" + value + " (replay: -D" + PROPERTY
                + "=" + value + ")");
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        String test = context.getRequiredTestClass().getSimpleName()
                + context.getTestMethod().map(method -> "#" + method.getName()).orElse("");
        throwable.addSuppressed(new Replay("seed=" + value + ", replay: -D" + PROPERTY + "=" + value + " -Dtest=" + test));
        throw throwable;
    }

    @Override
    public String toString() {
        return Long.toString(value);
    }

    /** The seed of a failed test, attached to its failure; no stack trace of its own. */
    static final class Replay extends Exception {
        private static final long serialVersionUID = 1L;

        Replay(String message) {
            super(message, null, false, false);
        }
    }
}
