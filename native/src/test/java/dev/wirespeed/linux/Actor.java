package dev.wirespeed.linux;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A platform thread running a body, its kernel id, and what /proc says it is doing: so that a test of a
 * call ended from another thread can prove the call was under way, asleep in the kernel, when it ended it
 * (a test that slept instead might end a call not yet made).
 */
public final class Actor extends Thread {
    /** {@code gettid()}: the kernel's id of the calling thread, by which /proc names it. */
    private static final MethodHandle GETTID = gettid();

    private final AtomicInteger tid = new AtomicInteger();
    private final AtomicReference<Throwable> thrown = new AtomicReference<>();
    private final Body body;

    /** What the thread runs. */
    public interface Body {
        /** Runs; what it throws is the thread's {@link #outcome()}. @throws Exception anything */
        void run() throws Exception;
    }

    /** A thread named {@code name}, not started, that will run {@code body}. */
    public Actor(String name, Body body) {
        super(name);
        this.body = body;
        setDaemon(true);
    }

    @SuppressWarnings("restricted") // a call without arguments that cannot fail
    private static MethodHandle gettid() {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find("gettid").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT));
    }

    private static int currentTid() {
        try {
            return (int) GETTID.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError("gettid down-call failed", t);
        }
    }

    @Override
    public void run() {
        tid.set(currentTid());
        try {
            body.run();
        } catch (Throwable t) {
            thrown.set(t);
        }
    }

    /** Starts the thread, then waits until it has said its kernel id; {@return the id} */
    public int begin() {
        start();
        awaitCondition(() -> getName() + " says its thread id", 10, () -> tid.get() != 0);
        return tid.get();
    }

    /** {@return what the body threw (null if nothing), once the thread has ended, within 10 s} */
    public Throwable outcome() throws InterruptedException {
        join(TimeUnit.SECONDS.toMillis(10));
        if (isAlive()) {
            fail(getName() + " still running after 10 s: /proc says " + systemCall(tid.get()));
        }
        return thrown.get();
    }

    /** Waits until the thread sleeps in system call {@code number}, failing after 10 s with what /proc said. */
    public void awaitAsleepIn(long number, String call) {
        int id = tid.get();
        awaitCondition(() -> getName() + " asleep in " + call + " (" + number + "): /proc says " + systemCall(id), 10,
                () -> systemCall(id).split(" ")[0].equals(Long.toString(number)));
    }

    /**
     * {@return what /proc says thread {@code tid} of this process is doing}: "running", or the system call
     * it sleeps in and its arguments ({@code "426 0x5 0x1 0x1 0x1 0x0 0x0 ..."}: number, then the
     * arguments in order, then the stack and instruction pointers)
     */
    public static String systemCall(int tid) {
        try {
            return Files.readString(Path.of("/proc/self/task/" + tid + "/syscall")).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void awaitCondition(Supplier<String> what, int seconds, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within " + seconds + " s: " + what.get());
            }
            LockSupport.parkNanos(100_000);
        }
    }
}
