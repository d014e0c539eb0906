#pragma once

#include <QTabWidget>

class KernelEditor;
class UserPrompts;

// The tabbed kernel editors and their file life cycle: new, open, save, save as, close, with the
// unsaved-changes question wherever work could be lost. File errors reach the user through UserPrompts.
class EditorTabs : public QTabWidget
{
    Q_OBJECT
public:
    explicit EditorTabs(UserPrompts *prompts, QWidget *parent = nullptr);

    // The tab's editor; nullptr for a view-only tab (its widget has viewOnlyProperty set, as Compare's has).
    KernelEditor *editorAt(int index) const;
    static constexpr const char *viewOnlyProperty = "viewOnly";
    KernelEditor *currentEditor() const;
    int indexOfFile(const QString &path) const;
    int indexOfCandidate(const QString &candidateId) const; // a CandidateTab's

    KernelEditor *newKernel();
    // Opens (or focuses, when already open) the file; false with the user told why when it cannot be read.
    bool openFile(const QString &path);
    void openWithDialog();
    bool save(int index);
    bool saveAs(int index);
    bool closeEditor(int index);
    // Closes every tab, asking about each unsaved one; false when the user cancelled.
    bool closeAll();
    bool hasUnsavedChanges() const;

Q_SIGNALS:
    void fileOpened(const QString &path); // opened or saved under a name: feeds the recent files
    void fileOpenFailed(const QString &path);
    void filesDropped(const QStringList &paths);
    void countChanged(int count); // a tab came or went: the window shows its welcome page at none

protected:
    void tabInserted(int index) override;
    void tabRemoved(int index) override;

private:
    void refreshTitle(KernelEditor *editor);
    KernelEditor *addEditor();
    QString startDir() const;

    UserPrompts *m_prompts;
    int m_untitledCounter = 0;
};
