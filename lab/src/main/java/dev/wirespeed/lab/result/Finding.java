package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A claim checked on one lab run: an article's finding or one of the library's targets, judged by one
 * {@link Rule} against every {@link Check} it names. It holds when every check satisfies the rule, and
 * never without a check.
 *
 * @param experiment the experiment that measured it
 * @param kind an article's claim or our target
 * @param claim the claim in words, without its rule ({@code zero-copy beats copying the body})
 * @param rule what each ratio must satisfy
 * @param checks the ratios, at least one
 * @param published the ratio the article measured for the same comparison, or null where it has none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Finding(String experiment, Kind kind, String claim, Rule rule, List<Check> checks, Double published) {
    /** Whose claim it is. */
    public enum Kind {
        /** A finding of one of the articles, re-checked here. */
        CLAIM,
        /** A target the library sets itself. */
        TARGET;

        /** {@return the lower-case name results.json uses} */
        @JsonValue
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Checks the fields and copies the checks.
     *
     * @throws NullPointerException if a field but {@code published} is null
     * @throws IllegalArgumentException if there is no check
     */
    public Finding {
        Objects.requireNonNull(experiment, "experiment");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(claim, "claim");
        Objects.requireNonNull(rule, "rule");
        checks = List.copyOf(checks);
        if (checks.isEmpty()) {
            throw new IllegalArgumentException("finding '" + claim + "' has no check");
        }
    }

    /**
     * {@return an article's claim judged on its checks}
     *
     * @param experiment the experiment
     * @param claim the claim in words
     * @param rule what each ratio must satisfy
     * @param published the article's ratio, or NaN
     * @param checks the ratios
     */
    public static Finding claim(String experiment, String claim, Rule rule, double published, List<Check> checks) {
        return new Finding(experiment, Kind.CLAIM, claim, rule, checks, Double.isNaN(published) ? null : published);
    }

    /**
     * {@return one of our targets judged on its checks}
     *
     * @param experiment the experiment
     * @param claim the target in words
     * @param rule what each ratio must satisfy
     * @param checks the ratios
     */
    public static Finding target(String experiment, String claim, Rule rule, List<Check> checks) {
        return new Finding(experiment, Kind.TARGET, claim, rule, checks, null);
    }

    /** {@return whether every check satisfies the rule} */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public boolean holds() {
        return checks.stream().allMatch(check -> rule.holds(check.ratio()));
    }

    /** {@return the checks that fail the rule} */
    public List<Check> failures() {
        return checks.stream().filter(check -> !rule.holds(check.ratio())).toList();
    }

    /**
     * {@return the check nearest to failing the rule, or farthest past it}: the smallest ratio for
     * {@code >=} and {@code >}, the largest for {@code <=} and {@code <}
     */
    public Check worst() {
        Comparator<Check> byRatio = Comparator.comparingDouble(Check::ratio);
        return switch (rule.bound()) {
            case AT_LEAST, ABOVE -> checks.stream().min(byRatio).orElseThrow();
            case AT_MOST, BELOW -> checks.stream().max(byRatio).orElseThrow();
        };
    }

    /**
     * {@return the figures in brief}: the failing checks where there are any, else the worst one, with
     * how many checks there were and the article's ratio
     */
    public String summary() {
        List<Check> failures = failures();
        String figures = failures.isEmpty()
                ? (checks.size() == 1 ? "" : "worst of " + checks.size() + ": ") + worst()
                : (checks.size() == 1 ? "" : "fails at " + failures.size() + " of " + checks.size() + ": ")
                        + failures.stream().map(Check::toString).collect(Collectors.joining("; "));
        return published == null ? figures : figures + String.format(Locale.ROOT, "; article %.2fx", published);
    }

    /** {@return the claim with its rule, as a report heads it} */
    public String title() {
        return (kind == Kind.TARGET ? "target: " : "") + claim + " (" + rule + ")";
    }

    /** {@return the figures behind the verdict, the article's ratio last} */
    public String figures() {
        String figures = checks.stream().map(Check::toString).collect(Collectors.joining("; "));
        return published == null ? figures : figures + String.format(Locale.ROOT, "; article %.2fx", published);
    }
}
