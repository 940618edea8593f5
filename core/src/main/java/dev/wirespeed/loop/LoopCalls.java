package dev.wirespeed.loop;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Work another thread runs on a loop's thread and waits for: a server's listener registered at its
 * start, its connections closed at its close. A call from the loop's own thread runs at once.
 *
 * <p>Thread safety: any thread.
 */
final class LoopCalls {
    /** Work to run on the loop's thread, which may fail with an {@link IOException}. */
    interface LoopTask {
        void run() throws IOException;
    }

    private LoopCalls() {
    }

    /**
     * Runs {@code task} on {@code loop}'s thread and waits for it: at once if called there.
     *
     * @throws IOException what the task threw
     * @throws IllegalStateException if the loop group is closed, or the wait was interrupted
     */
    static void call(EventLoop loop, LoopTask task) throws IOException {
        if (Thread.currentThread() == loop.thread) {
            task.run();
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            loop.execute(() -> {
                try {
                    task.run();
                    done.complete(null);
                } catch (IOException | RuntimeException e) {
                    done.completeExceptionally(e);
                }
            });
            if (!await(loop, done)) {
                throw new IllegalStateException("the loop group closed before loop " + loop.index() + " ran the task");
            }
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("the loop group is closed; loop " + loop.index(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for loop " + loop.index(), e);
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case IOException io -> throw io;
                case RuntimeException r -> throw r;
                default -> throw new IllegalStateException(e.getCause());
            }
        }
    }

    /**
     * Runs {@code task} on {@code loop}'s thread: at once if called there; else queued, and waited for
     * unless the caller is another loop's thread of the group (two loops waiting for each other would
     * never wake). Nothing if the loop has stopped: its end closed everything.
     */
    static void run(EventLoop loop, LoopGroup group, Runnable task) {
        if (Thread.currentThread() == loop.thread) {
            task.run();
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            loop.execute(() -> {
                try {
                    task.run();
                } finally {
                    done.complete(null);
                }
            });
        } catch (RejectedExecutionException e) {
            return;
        }
        if (group.current() != null) {
            return;
        }
        boolean interrupted = false;
        while (true) {
            try {
                await(loop, done);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException e) {
                break; // the task's failure went to the loop's uncaught-exception handler
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits for a task given to {@code loop}; {@return false if the loop ended without running it}
     * (given just as the loop stopped)
     */
    private static boolean await(EventLoop loop, CompletableFuture<Void> done)
            throws InterruptedException, ExecutionException {
        boolean sawEnd = false;
        while (true) {
            try {
                done.get(50, TimeUnit.MILLISECONDS);
                return true;
            } catch (TimeoutException e) {
                if (sawEnd) {
                    return false; // a wait past the loop's last tasks
                }
                sawEnd = loop.ended();
            }
        }
    }
}
