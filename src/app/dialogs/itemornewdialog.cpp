#include "itemornewdialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

ItemOrNewDialog::ItemOrNewDialog(const QString &title, const QString &label, const QStringList &items,
                                 const QString &newItem, QWidget *parent)
    : QDialog(parent), m_list(new QListWidget(this))
{
    setWindowTitle(title);
    auto *question = new QLabel(label, this);
    question->setWordWrap(true);
    m_list->setObjectName(QStringLiteral("itemList"));
    m_list->addItems(items);
    if (!items.isEmpty())
        m_list->setCurrentRow(0);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    QPushButton *make = buttons->addButton(newItem, QDialogButtonBox::ActionRole);
    make->setObjectName(QStringLiteral("newButton"));
    buttons->button(QDialogButtonBox::Ok)->setEnabled(!items.isEmpty());
    connect(make, &QPushButton::clicked, this, [this, newItem] {
        m_choice = newItem;
        QDialog::accept();
    });
    auto pick = [this] {
        if (!m_list->currentItem())
            return;
        m_choice = m_list->currentItem()->text();
        QDialog::accept();
    };
    connect(buttons, &QDialogButtonBox::accepted, this, pick);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::itemActivated, this, pick);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(question);
    layout->addWidget(m_list, 1);
    layout->addWidget(buttons);
    resize(480, 360);
}
