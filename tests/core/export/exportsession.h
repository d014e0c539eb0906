#pragma once

#include <QString>

class SessionStore;

// A finished two-iteration session in a real workspace database, shaped to exercise every path of the export
// room: a baseline, plans with awkward titles (a comma and quotes, a line break, Markdown and HTML
// characters), correct, incorrect, failing, fixed and never-evaluated candidates, and LLM calls with and
// without a price. The best kernel is reached through a fixer round:
//   baseline (4 ms) -> c1a (2 ms) -> c2x (incorrect) -> c2a (fixer round 1, 1.6 ms).
struct ExportSession
{
    // Latencies and % of peak chosen so speedups are exact in binary: 4/2 = 2, 4/1.6 = 2.5, 2/1.6 = 1.25.
    static constexpr double baselineMs = 4.0;
    static constexpr double bestMs = 1.6;

    QString sessionId;
    QString baselineId;
    QString c1a; // iteration 1, plan 0, ok 2 ms
    QString c1b; // iteration 1, plan 0, incorrect (multi-line error with a comma and quotes)
    QString c1c; // iteration 1, plan 1, compile_error whose message starts with '='
    QString c1d; // fixer round 1 of c1c, ok 2.5 ms
    QString c1e; // iteration 1, plan 1, never evaluated
    QString c2x; // iteration 2, plan 2, incorrect
    QString c2a; // fixer round 1 of c2x, ok 1.6 ms: the best
    QString c2b; // iteration 2, plan 2, timeout
    QString bestSource;

    static QString planTitle0() { return QStringLiteral("Fuse loads, then \"stream\" them"); }
    static QString planTitle1() { return QStringLiteral("Split\ninto tiles"); }
    static QString planTitle2() { return QStringLiteral("Double-buffer DMA | <overlap>"); }
    static QString c1bError()
    {
        return QStringLiteral("mismatch, got \"nan\" at [0, 3]\nTraceback (most recent call last):\n  ...");
    }
    static QString transcriptMarker() { return QStringLiteral("TRANSCRIPT-ONLY-TEXT"); }

    // Fills the store; false with the reason in `error`.
    bool create(SessionStore &store, QString &error);
    // A session whose only kernel, the baseline, is incorrect: nothing can be exported from it.
    static QString createHopeless(SessionStore &store);
};
