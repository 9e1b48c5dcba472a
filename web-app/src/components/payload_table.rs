//! A step's pass-specific payload as a two-column table (field, value).

use web_engine::protocol::PayloadRow;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PayloadTableProps {
    /// The payload type (`extract_subreg_pair`, `none`, ...).
    pub kind: String,
    pub rows: Vec<PayloadRow>,
}

#[function_component(PayloadTable)]
pub fn payload_table(props: &PayloadTableProps) -> Html {
    if props.rows.is_empty() {
        return html! { <p class="muted">{ "This step carries no pass-specific data." }</p> };
    }
    html! {
        <table class="payload-table">
            <caption><code>{ props.kind.clone() }</code></caption>
            <tbody>
                { for props.rows.iter().map(|r| html! {
                    <tr>
                        <th scope="row">{ r.key.replace('_', " ") }</th>
                        <td><code>{ r.value.clone() }</code></td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}
