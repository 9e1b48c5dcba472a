target triple = "nvptx64-nvidia-cuda"
define void @f(ptr %p, i32 %n, i32 %x) {
entry:
  %y = mul i32 %x, %x
  switch i32 %n, label %def [ i32 0, label %join
                              i32 1, label %a ]
a:
  %ya = add i32 %y, 3
  br label %join
def:
  %yd = sub i32 %y, %x
  br label %join
join:
  %r = phi i32 [%y, %entry], [%ya, %a], [%yd, %def]
  store i32 %r, ptr %p
  ret void
}
