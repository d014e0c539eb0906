#include "store/statement.h"

#include <QSqlError>

Statement::Statement(const QSqlDatabase &db, const QString &sql) : m_query(db), m_sql(sql)
{
    m_query.setForwardOnly(true);
    m_prepared = m_query.prepare(sql);
    if (!m_prepared)
        m_error = QStringLiteral("%1 (in: %2)").arg(m_query.lastError().text(), sql.simplified());
}

Statement &Statement::bind(const QString &placeholder, const QVariant &value)
{
    // Qt SQL binds a null QString (QString()) as SQL NULL, which would trip NOT NULL columns for every empty
    // text; text is never NULL here, only an invalid QVariant (orNull) is.
    if (value.typeId() == QMetaType::QString && value.toString().isNull())
        m_query.bindValue(placeholder, QStringLiteral(""));
    else
        m_query.bindValue(placeholder, value);
    return *this;
}

bool Statement::exec()
{
    if (!m_prepared)
        return false;
    if (m_query.exec())
        return true;
    m_error = QStringLiteral("%1 (in: %2)").arg(m_query.lastError().text(), m_sql.simplified());
    return false;
}
