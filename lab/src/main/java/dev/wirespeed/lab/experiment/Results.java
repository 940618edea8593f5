package dev.wirespeed.lab.experiment;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Every case's result of one experiment in one lab run, in the order the cases ran.
 *
 * <p>Thread safety: not thread-safe; filled by the lab's one thread, then only read.
 *
 * @param <C> the experiment's case
 * @param <R> what a case yields
 */
public final class Results<C, R> {
    private final Map<C, R> byCase = new LinkedHashMap<>();

    /** Empty results, to be filled case by case. */
    public Results() {
    }

    /**
     * Records the result of a case.
     *
     * @param kase the case
     * @param result its result
     * @throws IllegalStateException if the case already has one
     */
    public void put(C kase, R result) {
        if (byCase.putIfAbsent(kase, result) != null) {
            throw new IllegalStateException("case " + kase + " ran twice");
        }
    }

    /**
     * {@return the result of {@code kase}}
     *
     * @param kase a case that ran
     * @throws IllegalArgumentException if it did not run, naming it
     */
    public R get(C kase) {
        R result = byCase.get(kase);
        if (result == null) {
            throw new IllegalArgumentException("no result for case " + kase + "; cases: " + byCase.keySet());
        }
        return result;
    }

    /**
     * {@return whether {@code kase} ran}
     *
     * @param kase a case
     */
    public boolean has(C kase) {
        return byCase.containsKey(kase);
    }

    /** {@return the cases that ran, in order} */
    public List<C> cases() {
        return List.copyOf(byCase.keySet());
    }

    /**
     * {@return the cases that ran and match {@code filter}, in order}
     *
     * @param filter which cases
     */
    public List<C> cases(Predicate<C> filter) {
        return byCase.keySet().stream().filter(filter).toList();
    }
}
