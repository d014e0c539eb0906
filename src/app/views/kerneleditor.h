#pragma once

#include "model/evalprofile.h"

#include <Qsci/qsciscintilla.h>

// One kernel in one tab: Python highlighting, line numbers, folding, brace matching and completion that knows
// the NKI API. It knows its file path but does no file I/O itself (EditorTabs does, through KernelFile).
class KernelEditor : public QsciScintilla
{
    Q_OBJECT
public:
    explicit KernelEditor(QWidget *parent = nullptr);

    QString filePath() const { return m_filePath; }
    void setFilePath(const QString &path) { m_filePath = path; }
    QString untitledName() const { return m_untitledName; }
    void setUntitledName(const QString &name) { m_untitledName = name; }
    QString displayName() const;
    // For the tab, the window title and the Results dock: "silu · baseline.py", as every task's kernel is
    // called baseline.py. The task is the editor's "taskName" property (found when the file opened, or the
    // one chosen for Benchmark); without one, the display name alone.
    QString title() const;

    // Words offered for completion besides the document's own (nl.load, nisa.nc_matmul, ...).
    static const QStringList &nkiApiWords();
    // What completion offers for a prefix: NKI API words and the document's names, sorted.
    QStringList completionsFor(const QString &prefix) const;
    // Pops up the completion list for the word before the cursor (Ctrl+Space calls it with 0).
    void showCompletions(int minimumLength);
    static constexpr int minimumPrefix = 2;

    // Marks a 1-based line as where an evaluation failed: a red marker in the margin and the message under
    // the line (as Qt Creator shows a build error), until the text changes or the next mark.
    void markError(int line, const QString &message);
    void clearErrors();
    int errorLine() const { return m_errorLine; } // 1-based, 0 when none
    void goToLine(int line);                      // 1-based; puts the caret there and shows it

    // The heat gutter: a margin coloured by each line's share of the kernel's time (from an evaluation's line
    // costs), with the line's time per engine, instructions and bytes on hover. Null clears it; so does the
    // next edit, as the lines it describes move.
    void setHeat(const EvalProfilePtr &profile);
    EvalProfilePtr heat() const { return m_heat; }
    int heatLevel(int line) const; // 1-based line; 0 (none) to heatLevels - 1 (hottest), -1 without heat
    QString heatToolTip(int line) const;
    static constexpr int heatLevels = 8;
    static constexpr int heatMargin = 3;

Q_SIGNALS:
    void filesDropped(const QStringList &paths);
    void titleChanged(); // the task was named

protected:
    bool event(QEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    // Margin 0 as wide as the widest line number; a pane with its own margin text sizes it itself.
    virtual void updateMarginWidth();

private:
    QString prefixAtCursor() const;
    void acceptCompletion(int id, const QString &word);

    static constexpr int completionListId = 1;
    static constexpr int errorMarker = 1;
    static constexpr int firstHeatMarker = 10; // heatLevels markers from here
    static constexpr int maxScannedChars = 512 * 1024;

    QString m_filePath;
    QString m_untitledName;
    int m_errorLine = 0;
    EvalProfilePtr m_heat;
    QList<int> m_heatLevels; // per 0-based line
};
