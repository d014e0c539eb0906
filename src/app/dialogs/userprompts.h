#pragma once

#include <QString>
#include <QStringList>

#include <optional>

class QWidget;

// Every question the workbench asks the user goes through here. The default answers with real dialogs;
// tests replace it so they can script the answers and read the messages instead of blocking on a modal box.
class UserPrompts
{
public:
    enum class SaveChoice
    {
        Save,
        Discard,
        Cancel
    };

    virtual ~UserPrompts() = default;
    virtual void warn(QWidget *parent, const QString &title, const QString &text);
    virtual SaveChoice askSaveChanges(QWidget *parent, const QString &documentName);
    virtual QStringList openFileNames(QWidget *parent, const QString &startDir);
    virtual QString saveFileName(QWidget *parent, const QString &suggestedPath);
    // A file to export to, of one of the formats in `filter` ("PNG image (*.png);;..."); empty: cancelled.
    virtual QString exportFileName(QWidget *parent, const QString &title, const QString &filter);
    // A yes/no question about something that cannot be undone (delete, overwrite); false means no.
    virtual bool confirm(QWidget *parent, const QString &title, const QString &text);
    // One of `items`, or empty when the user cancelled.
    virtual QString chooseItem(QWidget *parent, const QString &title, const QString &label,
                               const QStringList &items);
    // One of `items`, or `newItem` when the user chose to make a new one instead (a button beside the list,
    // e.g. "New Task from This Kernel…"), or empty when the user cancelled.
    virtual QString chooseItemOrNew(QWidget *parent, const QString &title, const QString &label,
                                    const QStringList &items, const QString &newItem);
    virtual QString chooseFolder(QWidget *parent, const QString &title, const QString &startDir);
    // The CSV files of a Neuron Explorer "Export to CSV" (Instruction.csv, DmaPacketAggregated.csv).
    virtual QStringList openProfileExport(QWidget *parent);
    virtual void inform(QWidget *parent, const QString &title, const QString &text);
    // A whole number from `minimum` to `maximum`; empty when the user cancelled.
    virtual std::optional<int> askNumber(QWidget *parent, const QString &title, const QString &label,
                                         int value, int minimum, int maximum);
};
