#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

// The difference between two kernels, line by line and, inside changed lines, character by character: what
// the Compare view marks and `accelopt compare` prints. A pure function over dtl (the diff template library,
// Debian's libdtl-dev; an O(NP) shortest edit script), so it is tested with cases kept as files.
//
// Line endings are not a difference (a CRLF copy of a kernel is the same kernel; `lineEndingsDiffer` says so).
// The result is a list of rows, each one line of the left kernel, of the right one, or one of each (a changed
// line): the side-by-side view shows row i on line i of both panes, which keeps them aligned.
class KernelDiff
{
public:
    enum class Kind
    {
        Same,
        Changed, // a left line replaced by a right line
        Removed, // only on the left
        Added    // only on the right
    };
    struct Span
    {
        int start = 0; // in UTF-16 code units (QChar) of the line
        int length = 0;
        bool operator==(const Span &) const = default;
    };
    struct Row
    {
        Kind kind = Kind::Same;
        int left = -1; // 0-based line of the left kernel; -1 for an added line
        int right = -1;
        QList<Span> leftSpans; // the changed characters of a Changed row
        QList<Span> rightSpans;
    };
    struct Hunk
    {
        int firstRow = 0; // rows [firstRow, firstRow + rowCount) of Result::rows, context included
        int rowCount = 0;
        int leftStart = 0; // as unified diff writes them: 1-based, 0 for an empty side at the top
        int leftCount = 0;
        int rightStart = 0;
        int rightCount = 0;
    };
    struct Result
    {
        QStringList leftLines;
        QStringList rightLines;
        QList<Row> rows;
        QList<int> changes; // the first row of each run of changed rows: what next/previous change visits
        int added = 0;      // Added rows
        int removed = 0;    // Removed rows
        int changed = 0;    // Changed rows
        bool lineEndingsDiffer = false;

        bool identical() const { return added == 0 && removed == 0 && changed == 0; }
        // Runs of changes with `context` unchanged rows around them; runs closer than 2 x context merge.
        QList<Hunk> hunks(int context = 3) const;
        // The unified diff (`diff -u` style, without the time stamps), empty when identical.
        QString unified(const QString &leftName, const QString &rightName, int context = 3) const;
        // {"identical", "added", "removed", "changed", "line_endings_differ", "hunks": [{"left_start",
        // "left_count", "right_start", "right_count", "lines": [" same", "-removed", "+added"]}]}
        QJsonObject toJson(int context = 3) const;
    };

    static Result compute(const QString &left, const QString &right);
    // The lines of a text: split at \n, a trailing \r dropped, no empty last line for a final newline.
    static QStringList lines(const QString &text, bool *crlf = nullptr);
};
