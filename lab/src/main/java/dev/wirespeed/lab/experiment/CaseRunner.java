package dev.wirespeed.lab.experiment;

import java.io.IOException;

/**
 * Runs the cases of one {@link Experiment} in one lab run, owning what they share (servers, files, a
 * pinned thread) until closed.
 *
 * <p>Thread safety: used by one thread.
 *
 * @param <C> the experiment's case
 * @param <R> what a case yields
 */
public interface CaseRunner<C, R> extends AutoCloseable {
    /**
     * {@return the result of measuring one case}; it reports progress through the lab's context
     *
     * @param kase the case
     * @throws IOException if a child process, file or socket fails
     * @throws InterruptedException if interrupted
     */
    R run(C kase) throws IOException, InterruptedException;

    /**
     * Stops what the runner started and removes what it wrote.
     *
     * @throws IOException if cleaning up fails
     */
    @Override
    void close() throws IOException;
}
