#pragma once

#include <QString>

#include <optional>

// How the export room writes numbers and free text for people (the kernel header and the Markdown report), so
// the header, the report and the CLI's headline agree to the digit.
class ExportFormat
{
public:
    // Six significant digits: enough to tell close candidates apart, never "0.0000" for a microsecond kernel.
    static QString milliseconds(double ms);
    static QString percent(double percentOfPeak); // "42.1%" (the runner reports 0-100)
    static QString speedup(double factor);        // "2.31x"
    // The first non-empty line, trimmed: what a table cell or a CSV summary shows of an error.
    static QString firstLine(const QString &text);
    // One line of printable text: line breaks and control characters become spaces, so a value from an LLM
    // or a task file cannot break out of a comment or a table row. Longer text is cut at `maxLength`.
    static QString oneLine(const QString &text, qsizetype maxLength = 200);
    // Speedup of a kernel over the baseline, when both latencies are known.
    static std::optional<double> speedupOver(const std::optional<double> &baselineMs,
                                             const std::optional<double> &ms);
};
