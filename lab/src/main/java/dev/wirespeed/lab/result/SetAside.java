package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A row the lab measured but does not trust, and why: no finding is judged on it, its table says so,
 * and the report lists it under its experiment.
 *
 * @param experiment the experiment that measured it
 * @param row the row's name, as its table and {@code results.json} name it
 * @param placement where it ran
 * @param percentile the percentile distrusted, for a latency row; null for every other figure
 * @param reason why the lab does not trust it
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SetAside(String experiment, String row, Placement placement, Percentile percentile, Reason reason) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException if a field but {@code percentile} is null
     */
    public SetAside {
        Objects.requireNonNull(experiment, "experiment");
        Objects.requireNonNull(row, "row");
        Objects.requireNonNull(placement, "placement");
        Objects.requireNonNull(reason, "reason");
    }

    /**
     * {@return the row set aside, or null where {@code reason} is null (the lab trusts it)}
     *
     * @param experiment the experiment
     * @param row the row's name
     * @param placement where it ran
     * @param percentile the percentile, or null
     * @param reason why the lab does not trust it, or null where it does
     */
    public static SetAside of(String experiment, String row, Placement placement, Percentile percentile,
            Reason reason) {
        return reason == null ? null : new SetAside(experiment, row, placement, percentile, reason);
    }

    /** {@return the row, with its percentile where it has one: {@code jdk-spin p50}} */
    public String name() {
        return percentile == null ? row : row + " " + percentile.label();
    }

    /**
     * {@return {@code cell}, a table's cell of a figure, marked where the figure is set aside}: {@code
     * "608.0 [580.0-640.0] set aside"}; every table of every experiment marks its cells so
     *
     * @param cell the cell's text
     * @param setAside whether the lab sets the cell's figure aside
     */
    public static String marked(String cell, boolean setAside) {
        return setAside ? cell + " set aside" : cell;
    }

    /**
     * {@return whether {@code figure} is the one this row distrusts}: the same experiment, row, placement
     * and percentile, in the unit of the reason
     *
     * @param figure a row of {@code results.json}
     */
    public boolean covers(Measurement figure) {
        return experiment.equals(figure.series().experiment()) && row.equals(figure.series().name())
                && placement.equals(figure.placement()) && Objects.equals(percentile, figure.percentile())
                && reason.unit() == figure.unit();
    }

    /**
     * {@return the note under a table saying what the spread rule sets aside}
     *
     * @param figures which of the table's figures the rule applies to: {@code "a percentile the findings judge"}
     */
    public static String spreadNote(String figures) {
        return figures + " whose runs spread wider than their median (max - min > median) is set aside and judges "
                + "no finding";
    }

    /** {@return the note under its table: {@code set aside, judging nothing: netty-nio at different cores: ...}} */
    public String note() {
        return "set aside, judging nothing: " + this;
    }

    /** {@return the row, where it ran and why it is set aside: {@code netty-nio at different cores: ...}} */
    @Override
    public String toString() {
        return name() + " at " + placement + ": " + reason;
    }

    /**
     * {@return the note saying that {@code finding} is not judged, and which of the rows it reads are set aside}
     *
     * @param finding the finding left out
     * @param rows the rows it reads that are set aside, at least one
     */
    public static String notJudged(Finding finding, Collection<SetAside> rows) {
        return finding.experiment() + ": not judged, as it reads rows set aside: " + finding.title() + ". "
                + rows.stream().map(SetAside::toString).distinct().collect(Collectors.joining("; "));
    }

    /** What made the lab distrust a figure. */
    public enum Cause {
        /** The timed figure strays beyond the tolerance from an untimed pass of the same client. */
        UNTIMED("untimed"),
        /** The rounds or runs spread wider than their median ({@code max - min > median}). */
        SPREAD("spread");

        private final String id;

        Cause(String id) {
            this.id = id;
        }

        /** {@return the name {@code results.json} uses} */
        @JsonValue
        public String id() {
            return id;
        }
    }

    /**
     * Why the lab does not trust a figure, with the figures that say so.
     *
     * @param cause what made the lab distrust it
     * @param unit the unit of {@code figure} and {@code untimed}
     * @param figure the figure distrusted: the median, min and max of its rounds or runs
     * @param untimed the median of the untimed pass, for {@link Cause#UNTIMED}; null otherwise
     * @param tolerance how far the timed median may stray from {@code untimed}, as a share ({@code 0.15}),
     *     for {@link Cause#UNTIMED}; null otherwise
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Reason(Cause cause, Unit unit, Stats figure, Double untimed, Double tolerance) {
        /**
         * Checks the fields against the cause.
         *
         * @throws NullPointerException if {@code cause}, {@code unit} or {@code figure} is null
         * @throws IllegalArgumentException if {@code untimed} and {@code tolerance} are not given for
         *     {@link Cause#UNTIMED} alone
         */
        public Reason {
            Objects.requireNonNull(cause, "cause");
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(figure, "figure");
            boolean untimedCause = cause == Cause.UNTIMED;
            if (untimedCause != (untimed != null) || untimedCause != (tolerance != null)) {
                throw new IllegalArgumentException("cause=" + cause + " untimed=" + untimed + " tolerance=" + tolerance
                        + ": an untimed figure and a tolerance go with cause=" + Cause.UNTIMED + " alone");
            }
        }

        /**
         * {@return why the lab does not trust {@code timed}, or null where it does}: its median strays more
         * than {@code tolerance} from the median of {@code untimed} (the timing itself, or a warm-up too short
         * for the client, changed what was measured), else its rounds spread wider than their median
         *
         * @param timed the timed rounds
         * @param untimed the rounds of an untimed pass of the same client, empty where none ran
         * @param tolerance how far the timed median may stray from the untimed one, as a share
         * @param unit the unit of both
         */
        public static Reason timed(Stats timed, List<Double> untimed, double tolerance, Unit unit) {
            if (!untimed.isEmpty()) {
                double median = Stats.of(untimed).median();
                if (Math.abs(timed.median() / median - 1) > tolerance) {
                    return new Reason(Cause.UNTIMED, unit, timed, median, tolerance);
                }
            }
            return spread(timed, unit);
        }

        /**
         * {@return why the lab does not trust {@code figure}, or null where it does}: its rounds or runs
         * spread wider than their median ({@code max - min > median}): the machine, not what was measured,
         * made the figure
         *
         * @param figure the figure's median, min and max
         * @param unit its unit
         */
        public static Reason spread(Stats figure, Unit unit) {
            return figure.max() - figure.min() > figure.median() ? new Reason(Cause.SPREAD, unit, figure, null, null)
                    : null;
        }

        /** {@return the reason in words, with its figures} */
        @Override
        public String toString() {
            return switch (cause) {
                case UNTIMED -> String.format(Locale.ROOT, "its timed rounds read %,.1f %s and an untimed pass of the "
                        + "same client %,.1f %s: %+.0f%%, beyond the %.0f%% the lab allows", figure.median(), unit,
                        untimed, unit, 100 * (figure.median() / untimed - 1), 100 * tolerance);
                case SPREAD -> String.format(Locale.ROOT, "its figures spread from %,.1f to %,.1f %s about a median of "
                        + "%,.1f: wider than the median", figure.min(), figure.max(), unit, figure.median());
            };
        }
    }
}
