#pragma once

#include <QDialog>

class QListWidget;

// The real dialog behind UserPrompts::chooseItemOrNew: a question, a list to pick from and, beside the list's
// OK, a button to make a new one instead (a kernel that solves none of the listed tasks needs its own).
class ItemOrNewDialog : public QDialog
{
    Q_OBJECT
public:
    ItemOrNewDialog(const QString &title, const QString &label, const QStringList &items,
                    const QString &newItem, QWidget *parent = nullptr);

    // The chosen item, or the new item's text; valid after accept().
    QString choice() const { return m_choice; }
    QListWidget *list() const { return m_list; }

private:
    QListWidget *m_list;
    QString m_choice;
};
